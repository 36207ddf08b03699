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
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';
import { answer, done, good, type Expected, type Scenario } from './messy-scenario.js';
import { answerScenarios, budgetScenarios } from './messy-answer-scenarios.js';
import { loopScenarios } from './messy-loop-scenarios.js';
import { textScenarios } from './messy-text-scenarios.js';
import { toolCallScenarios } from './messy-tool-call-scenarios.js';

const loopback = useLoopbackServer({ timeoutMs: 10_000 });
const task = 'Use the calculator: what is 17 * 23 + 4?';
const longPage = defineTool({
  name: 'fetch_page',
  description: 'Fetches a page.',
  parameters: z.object({ url: z.string() }),
  execute: ({ url }) => `${url}: ${'lorem ipsum dolor sit amet '.repeat(400)}`,
});

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
