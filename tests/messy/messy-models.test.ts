// "Messy model" scenarios: how small and mid-size open models really misbehave (broken tool calls, text-protocol
// slips, loops, budgets, odd answers), each against the loopback Chat Completions server through the OpenAI adapter
// and the built-in ReAct pipeline with its default guards. Each ends with the right answer where a repair can get
// there, otherwise a truthful stop within the limits: never a crash (status failed), never a hang.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/index.js';
import { runPipeline, type RunResult } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { defineTool } from '../../src/tools/define-tool.js';
import type { ChatServer, ServerToolCall } from '../support/chat-server.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';

const loopback = useLoopbackServer({ timeoutMs: 10_000 });
const task = 'Use the calculator: what is 17 * 23 + 4?';
const good = (id = 'call_ok'): ServerToolCall => ({
  id,
  name: 'calculator',
  arguments: '{"expression":"17 * 23 + 4"}',
});
const answer = { content: '17 * 23 + 4 = 395.' };
const raw = (message: Record<string, unknown>, finishReason = 'tool_calls') =>
  JSON.stringify({
    id: 'x',
    object: 'chat.completion',
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finishReason }],
  });
const rawCall = (name: string, args: unknown, id = 'call_raw') =>
  raw({ tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] });
const action = (json: string) => ({ content: `Action: ${json}` });
const textCall = '{"type":"tool","name":"calculator","args":{"expression":"17 * 23 + 4"}}';
const textFinish = action('{"type":"finish","answer":"17 * 23 + 4 = 395."}');
const longPage = defineTool({
  name: 'fetch_page',
  description: 'Fetches a page.',
  parameters: z.object({ url: z.string() }),
  execute: ({ url }) => `${url}: ${'lorem ipsum dolor sit amet '.repeat(400)}`,
});

interface Expected {
  status: RunResult['status'];
  kind?: string | RegExp;
  answer?: RegExp;
  /** Repair turns the run made. */
  repairs?: number;
}

interface Scenario {
  name: string;
  arrange(server: ChatServer): void;
  expected: Expected;
  text?: boolean;
  /** Nobody listens, so requests are not streamed (the scenario sends a raw JSON body). */
  unobserved?: boolean;
  modelName?: string;
  maxIterations?: number;
}

async function play(scenario: Scenario) {
  const events: RunEvent[] = [];
  const model = loopback.model({
    ...(scenario.text && { toolProtocol: 'text' as const }),
    ...(scenario.modelName && { model: scenario.modelName }),
  });
  scenario.arrange(loopback.server);
  const pipeline = reactPipeline(scenario.maxIterations === undefined ? {} : { maxIterations: scenario.maxIterations });
  const onEvent = scenario.unobserved ? undefined : (event: RunEvent) => void events.push(event);
  const result = await runPipeline(
    pipeline,
    { task },
    { deps: { model, tools: testTools(longPage), ...(onEvent && { onEvent }) } },
  );
  return { result, events };
}

function check(result: RunResult, expected: Expected): void {
  expect(result.status, `stop: ${JSON.stringify(result.stopReason)}`).toBe(expected.status);
  if (typeof expected.kind === 'string') expect(result.stopReason.kind).toBe(expected.kind);
  if (expected.kind instanceof RegExp) expect(result.stopReason.kind).toMatch(expected.kind);
  if (expected.answer) expect(result.answer ?? '').toMatch(expected.answer);
  if (expected.repairs !== undefined) expect(result.state.think?.repairsTotal ?? 0).toBe(expected.repairs);
  expect(result.iterations).toBeLessThanOrEqual(result.state.limits?.maxIterations ?? 10);
}

const done: Expected = { status: 'completed', kind: 'completed', answer: /395/ };
const repaired = (repairs: number): Expected => ({ ...done, repairs });

const toolCallScenarios: Scenario[] = [
  {
    name: 'arguments as a JSON object instead of a string',
    unobserved: true,
    arrange: (s) => s.raw(200, rawCall('calculator', { expression: '17 * 23 + 4' })).replyWith(answer),
    expected: repaired(0),
  },
  {
    name: 'arguments with a trailing comma',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '{"expression": "17 * 23 + 4",}' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'arguments in single quotes',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: "{'expression': '17 * 23 + 4'}" }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'arguments cut off mid-string (finish "tool_calls")',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '{"expression": "17 * 2' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'arguments cut off by the length limit',
    arrange: (s) =>
      s
        .replyWith({ toolCalls: [{ ...good(), arguments: '{"expression": "17 *' }], finishReason: 'length' })
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(0),
  },
  {
    name: 'an unknown tool name',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), name: 'calc' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'the tool name in another case',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), name: 'Calculator' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'the tool name in another case, kept through both repairs: taken as meant',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), name: 'CALCULATOR' }])
        .replyWithToolCalls([{ ...good(), name: 'CALCULATOR' }])
        .replyWithToolCalls([{ ...good(), name: 'Calculator' }])
        .replyWith(answer),
    expected: repaired(2),
  },
  {
    name: 'a tool name with spaces around it',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), name: ' calculator ' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'an unknown tool name through both repairs: the tool error reaches the model, which answers',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), name: 'math' }])
        .replyWithToolCalls([{ ...good(), name: 'math' }])
        .replyWithToolCalls([{ ...good(), name: 'math' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(2),
  },
  {
    name: 'arguments as a double-encoded JSON string',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: JSON.stringify('{"expression":"17 * 23 + 4"}') }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'arguments as a JSON array',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '["17 * 23 + 4"]' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'arguments wrapped in a markdown fence',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '```json\n{"expression":"17 * 23 + 4"}\n```' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'empty arguments: the tool says what is missing, the model corrects',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(0),
  },
  {
    name: 'a misspelt parameter name: the tool error, then the corrected call',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '{"expr":"17 * 23 + 4"}' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(0),
  },
  {
    name: 'two calls in one reply, one of them broken',
    arrange: (s) =>
      s
        .replyWithToolCalls([good('a'), { ...good('b'), arguments: '{expression: 1}' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'broken arguments through both repairs: run as written, the tool error, then a good call',
    arrange: (s) => {
      for (let n = 0; n < 3; n++) s.replyWithToolCalls([{ ...good(), arguments: '{"expression": 17 * 23 + 4}' }]);
      s.replyWithToolCalls([good()]).replyWith(answer);
    },
    expected: repaired(2),
  },
  {
    name: 'text and a tool call in the same reply',
    arrange: (s) => s.replyWith({ content: 'Let me compute that.', toolCalls: [good()] }).replyWith(answer),
    expected: repaired(0),
  },
  {
    name: 'a tool call with no id',
    unobserved: true,
    arrange: (s) =>
      s
        .raw(
          200,
          raw({
            tool_calls: [
              { type: 'function', function: { name: 'calculator', arguments: '{"expression":"17 * 23 + 4"}' } },
            ],
          }),
        )
        .replyWith(answer),
    expected: repaired(0),
  },
];

const textScenarios: Scenario[] = [
  {
    name: 'an Action line after some reasoning text',
    arrange: (s) => s.replyWith({ content: `I should use the calculator.\nAction: ${textCall}` }).replyWith(textFinish),
    expected: repaired(0),
  },
  {
    name: 'an Action line with text after the JSON',
    arrange: (s) =>
      s.replyWith({ content: `Action: ${textCall} and then I will wait for the result.` }).replyWith(textFinish),
    expected: repaired(0),
  },
  {
    name: 'an Action without "type"',
    arrange: (s) =>
      s.replyWith(action('{"name":"calculator","args":{"expression":"17 * 23 + 4"}}')).replyWith(textFinish),
    expected: repaired(0),
  },
  {
    name: 'an Action with "arguments" instead of "args"',
    arrange: (s) =>
      s
        .replyWith(action('{"type":"tool","name":"calculator","arguments":{"expression":"17 * 23 + 4"}}'))
        .replyWith(textFinish),
    expected: repaired(0),
  },
  {
    name: 'a finish without "type"',
    arrange: (s) => s.replyWith(action(textCall)).replyWith(action('{"answer":"17 * 23 + 4 = 395."}')),
    expected: repaired(0),
  },
  {
    name: 'an Action in single quotes',
    arrange: (s) =>
      s
        .replyWith(action("{'type': 'tool', 'name': 'calculator', 'args': {'expression': '17 * 23 + 4'}}"))
        .replyWith(action(textCall))
        .replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'an Action with a trailing comma',
    arrange: (s) =>
      s
        .replyWith(action('{"type":"tool","name":"calculator","args":{"expression":"17 * 23 + 4"},}'))
        .replyWith(action(textCall))
        .replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'an Action line cut off',
    arrange: (s) =>
      s
        .replyWith(action('{"type":"tool","name":"calculator","args":{"expression":"17 *'))
        .replyWith(action(textCall))
        .replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'an Action naming an unknown tool',
    arrange: (s) =>
      s
        .replyWith(action('{"type":"tool","name":"python","args":{"code":"17*23+4"}}'))
        .replyWith(action(textCall))
        .replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'an Action naming the tool in another case',
    arrange: (s) =>
      s
        .replyWith(action('{"type":"tool","name":"Calculator","args":{"expression":"17 * 23 + 4"}}'))
        .replyWith(action(textCall))
        .replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'an Action followed by an invented Observation',
    arrange: (s) => s.replyWith({ content: `Action: ${textCall}\nObservation: 400` }).replyWith(textFinish),
    expected: repaired(0),
  },
  {
    name: 'an Action with no JSON at all',
    arrange: (s) =>
      s.replyWith({ content: 'Action: calculator 17 * 23 + 4' }).replyWith(action(textCall)).replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'a broken Action through both repairs: a truthful stop',
    arrange: (s) => {
      for (let n = 0; n < 3; n++) s.replyWith(action("{'type': 'tool'"));
      s.replyWith({ content: 'I could not call the tool.' });
    },
    expected: { status: 'stopped', kind: 'invalid_tool_call', repairs: 2 },
  },
  { name: 'a plain answer with no Action line', arrange: (s) => s.replyWith(answer), expected: repaired(0) },
];

const loopScenarios: Scenario[] = [
  {
    name: 'the same failing call forever',
    arrange: (s) => {
      for (let n = 1; n <= 4; n++)
        s.replyWithToolCalls([{ id: `c${n}`, name: 'calculator', arguments: '{"expression":"17 / / 23"}' }]);
      s.replyWith({ content: 'Partial: the calculator rejects my expression.' });
    },
    expected: { status: 'stopped', kind: 'loop_detected', answer: /Partial/ },
  },
  {
    name: 'the same failing call with its keys reordered and spaced',
    arrange: (s) => {
      const forms = ['{"expression":"1/"}', '{ "expression" : "1/" }', '{"expression":"1/"}', '{"expression": "1/"}'];
      forms.forEach((args, n) => s.replyWithToolCalls([{ id: `c${n}`, name: 'calculator', arguments: args }]));
      s.replyWith({ content: 'Partial.' });
    },
    expected: { status: 'stopped', kind: 'loop_detected' },
  },
  {
    name: 'two failing calls in turn',
    arrange: (s) => {
      for (let n = 1; n <= 10; n++)
        s.replyWithToolCalls([
          { id: `c${n}`, name: 'calculator', arguments: n % 2 === 0 ? '{"expression":"1/"}' : '{"expression":"2/"}' },
        ]);
      s.replyWith({ content: 'Partial.' });
    },
    expected: { status: 'stopped', kind: /^(loop_detected|evaluate_stop)$/ },
  },
  {
    name: 'a model that never stops calling tools (new arguments each time)',
    arrange: (s) => {
      for (let n = 1; n <= 10; n++)
        s.replyWithToolCalls([{ id: `c${n}`, name: 'calculator', arguments: `{"expression":"${n} + 1"}` }]);
      s.replyWith({ content: 'Partial: small sums only.' });
    },
    expected: { status: 'stopped', kind: 'max_iterations', answer: /Partial/ },
  },
  {
    name: 'the same successful call forever is never refused: the iteration cap ends it',
    arrange: (s) => {
      for (let n = 1; n <= 10; n++) s.replyWithToolCalls([good(`c${n}`)]);
      s.replyWith({ content: 'Partial: 395, computed many times.' });
    },
    expected: { status: 'stopped', kind: 'max_iterations', answer: /395/ },
  },
  {
    name: 'a failing call, then a different one that works',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good('a'), arguments: '{"expression":"17 * 23 +"}' }])
        .replyWithToolCalls([good('b')])
        .replyWith(answer),
    expected: done,
  },
  {
    name: 'a failing call twice, then the right one (not refused)',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good('a'), arguments: '{"expression":"17x23"}' }])
        .replyWithToolCalls([{ ...good('b'), arguments: '{"expression":"17x23"}' }])
        .replyWithToolCalls([good('c')])
        .replyWith(answer),
    expected: done,
  },
];

const budgetScenarios: Scenario[] = [
  {
    name: 'a huge prompt every turn: the default token budget ends it with a graceful answer',
    arrange: (s) => {
      for (let n = 1; n <= 3; n++) s.replyWithToolCalls([good(`c${n}`)], { usage: { input: 45_000, output: 500 } });
      s.replyWith({ content: 'Final: 395.', usage: { input: 45_000, output: 500 } });
    },
    expected: { status: 'stopped', kind: 'budget_tokens', answer: /395/ },
  },
  {
    name: 'long tool outputs in a small window (gpt-4, 8,192 tokens): older ones are pruned and the run answers',
    modelName: 'gpt-4',
    arrange: (s) => {
      for (let n = 1; n <= 4; n++)
        s.replyWithToolCalls([{ id: `p${n}`, name: 'fetch_page', arguments: `{"url":"https://example.com/${n}"}` }]);
      s.replyWithToolCalls([good()]).replyWith(answer);
    },
    expected: done,
  },
  {
    name: 'a model that answers once told the budget is nearly spent',
    arrange: (s) =>
      s
        .replyWithToolCalls([good()], { usage: { input: 85_000, output: 10 } })
        .replyWith({ ...answer, usage: { input: 1_000, output: 10 } }),
    expected: done,
  },
];

const answerScenarios: Scenario[] = [
  {
    name: 'an empty reply, then the answer',
    arrange: (s) => s.replyWith({ content: '' }).replyWith(answer),
    expected: done,
  },
  {
    name: 'empty replies forever: the iteration cap, a truthful partial stop',
    maxIterations: 4,
    arrange: (s) => {
      for (let n = 0; n < 5; n++) s.replyWith({ content: '' });
    },
    expected: { status: 'stopped', kind: 'max_iterations' },
  },
  {
    name: 'a reply that repeats the question, then the answer',
    arrange: (s) => s.replyWith({ content: 'Use the calculator: what is 17 * 23 + 4?' }).replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'a reply that repeats the question in other case and punctuation, then a tool call',
    arrange: (s) =>
      s.replyWith({ content: 'use the calculator what is 17*23 + 4' }).replyWithToolCalls([good()]).replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'answers before using the tool it was told to use (the right number)',
    arrange: (s) => s.replyWith(answer),
    expected: done,
  },
  {
    name: 'a text answer cut by the length limit is still the answer',
    arrange: (s) => s.replyWith({ content: '17 * 23 + 4 = 395, because 17 * 23 is', finishReason: 'length' }),
    expected: done,
  },
  {
    name: 'a tool call in the tools-less final turn is ignored and the summary answers',
    maxIterations: 2,
    arrange: (s) =>
      s
        .replyWithToolCalls([good('a')])
        .replyWithToolCalls([good('b')])
        .replyWith({ content: 'Partial: 395.' }),
    expected: { status: 'stopped', kind: /^(max_iterations|budget_iterations)$/, answer: /395/ },
  },
];

for (const [family, scenarios] of Object.entries({
  'tool calls': toolCallScenarios,
  'text protocol': textScenarios.map((scenario) => ({ ...scenario, text: true })),
  loops: loopScenarios,
  budgets: budgetScenarios,
  answers: answerScenarios,
})) {
  describe(`messy models: ${family}`, () => {
    it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))(
      '%s',
      async (_name, scenario) => {
        const { result, events } = await play(scenario);
        check(result, scenario.expected);
        if ((scenario.expected.repairs ?? 0) > 0)
          expect(events.filter((event) => event.type === 'repair_turn')).toHaveLength(scenario.expected.repairs!);
      },
      30_000,
    );
  });
}

it('has at least 40 scenarios', () => {
  expect(
    toolCallScenarios.length +
      textScenarios.length +
      loopScenarios.length +
      budgetScenarios.length +
      answerScenarios.length,
  ).toBeGreaterThanOrEqual(40);
});

describe('a repair turn is counted and shown', () => {
  it('the repair request carries the exact parse error; its tokens count in usage; the conversation keeps only the good call', async () => {
    loopback.server
      .replyWithToolCalls([{ ...good(), arguments: '{"expression": "17 * 23 + 4",}' }], {
        usage: { input: 100, output: 10 },
      })
      .replyWithToolCalls([good()], { usage: { input: 120, output: 10 } })
      .replyWith({ ...answer, usage: { input: 150, output: 10 } });
    const { result, events } = await play({ name: 'repair', arrange: () => undefined, expected: done });
    const bodies = loopback.server.requests.map((request) => request.body);
    const note = bodies[1]!.messages.at(-1)!;
    expect(note.role).toBe('user');
    expect(note.content).toMatch(
      /The arguments of your call to "calculator" are not valid JSON \(.*JSON.*\): "\{\\"expression\\": \\"17 \* 23 \+ 4\\",\}"/,
    );
    expect(result.usage).toMatchObject({ inputTokens: 370, outputTokens: 30 });
    expect(events.find((event) => event.type === 'repair_turn')?.data).toMatchObject({ attempt: 1, maxRepairs: 2 });
    expect(bodies[2]!.messages.some((message) => (message.content ?? '').includes('could not be used'))).toBe(false);
  });
});
