// Whole runs against a real Chat Completions server on 127.0.0.1, through the OpenAI adapter, scripted like a model.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline, reactPipeline } from '../../pipelines/index.js';
import type { Pipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { testTools } from '../support/stage-tools.js';
import { useLoopbackServer } from '../support/loopback-model.js';

const loopback = useLoopbackServer();

const calc = (expression: string, id?: string) => ({
  name: 'calculator',
  arguments: JSON.stringify({ expression }),
  ...(id ? { id } : {}),
});
const plan = (...descriptions: string[]) => ({
  content: JSON.stringify({ steps: descriptions.map((description) => ({ description, status: 'pending' })) }),
});
const keep = { content: '{"need_replan":false,"reason":"on track","new_steps":[]}' };

async function run(pipeline: Pipeline, task: string) {
  const model = new OpenAIChatModel({
    baseUrl: loopback.server.url,
    model: 'test-model',
    maxRetries: 0,
    timeoutMs: 5_000,
  });
  const events: RunEvent[] = [];
  const result = await runPipeline(
    pipeline,
    { task },
    { deps: { model, tools: testTools(), onEvent: (event) => events.push(event) } },
  );
  return { result, events, bodies: loopback.server.requests.map((request) => request.body) };
}

describe('react over the loopback server', () => {
  it('one tool call, then the answer; usage with cached tokens adds up', async () => {
    loopback.server
      .replyWithToolCalls([calc('17 * 23 + 4', 'call_a')], { usage: { input: 50, output: 10, cached: 20 } })
      .replyWith({ content: '395', usage: { input: 70, output: 2, cached: 40 } });
    const { result, bodies } = await run(reactPipeline(), 'What is 17 * 23 + 4?');
    loopback.server.assertConsumed();
    expect(result).toMatchObject({
      status: 'completed',
      answer: '395',
      usage: { inputTokens: 120, outputTokens: 12, cachedInputTokens: 60 },
    });
    expect(bodies[0]!.tools?.map((tool) => tool.function.name)).toEqual(['calculator', 'lookup']);
    expect(bodies[1]!.messages.slice(2)).toEqual([
      expect.objectContaining({
        role: 'assistant',
        tool_calls: [
          expect.objectContaining({
            id: 'call_a',
            function: { name: 'calculator', arguments: '{"expression":"17 * 23 + 4"}' },
          }),
        ],
      }),
      expect.objectContaining({ role: 'tool', tool_call_id: 'call_a', content: '395' }),
    ]);
  });

  it('two parallel tool calls in one turn', async () => {
    loopback.server
      .replyWithToolCalls([calc('17 * 23', 'call_a'), calc('4 * 1', 'call_b')])
      .replyWith({ content: '391 + 4 = 395' });
    const { result, bodies } = await run(reactPipeline(), 'What is 17 * 23 + 4?');
    expect(result.answer).toBe('391 + 4 = 395');
    expect(bodies[1]!.messages.slice(3).map((message) => [message.tool_call_id, message.content])).toEqual([
      ['call_a', '391'],
      ['call_b', '4'],
    ]);
  });

  it('a tool error the model recovers from', async () => {
    loopback.server
      .replyWithToolCalls([{ name: 'calculator', arguments: '{"expression": 17}', id: 'call_a' }])
      .replyWithToolCalls([calc('17 * 23 + 4', 'call_b')])
      .replyWith({ content: '395' });
    const { result, bodies, events } = await run(reactPipeline(), 'What is 17 * 23 + 4?');
    expect(result).toMatchObject({ status: 'completed', answer: '395' });
    expect(bodies[1]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_a',
      content: expect.stringMatching(/^Error \(invalid_arguments\)/),
    });
    expect(events.filter((event) => event.type === 'tool_result').map((event) => event.data.ok)).toEqual([false, true]);
  });

  it('the iteration cap produces a partial summary answer from a tool-less call', async () => {
    loopback.server
      .replyWithToolCalls([calc('17 * 23', 'call_a')])
      .replyWithToolCalls([calc('391 + 4', 'call_b')])
      .replyWith({ content: 'Most likely 395 (not confirmed).' });
    const { result, bodies } = await run(reactPipeline({ maxIterations: 2 }), 'What is 17 * 23 + 4?');
    loopback.server.assertConsumed();
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'max_iterations' },
      partial: true,
      answer: 'Most likely 395 (not confirmed).',
    });
    expect(bodies[2]!.tools).toBeUndefined();
    expect(bodies[2]!.messages[1]!.content).toContain('Stop reason: reached the iteration cap of 2 (max_iterations)');
  });

  it('truncated tool arguments are retried, then the run aborts with kind truncation', async () => {
    const cut = {
      toolCalls: [{ name: 'calculator', arguments: '{"expression":"17 * 2', id: 'call_cut' }],
      finishReason: 'length',
    };
    loopback.server.replyWith({ ...cut, times: 4 }).replyWith({ content: 'I was cut off before computing anything.' });
    const { result, bodies } = await run(reactPipeline(), 'What is 17 * 23 + 4?');
    loopback.server.assertConsumed();
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'truncation', stage: 'think' },
      partial: true,
      answer: 'I was cut off before computing anything.',
    });
    expect(
      bodies[3]!.messages.filter((message) => message.role === 'user' && /cut off/.test(message.content ?? '')),
    ).toHaveLength(3);
    expect(result.state.act).toBeUndefined();
  });
});

describe('plan-execute-replan over the loopback server', () => {
  it('a replan rewrites the remaining steps, completed work stays', async () => {
    loopback.server
      .replyWith(plan('Compute 12*12', 'Add 10', 'Divide by 2'))
      .replyWithToolCalls([calc('12*12', 'call_1')])
      .replyWith({ content: '144' })
      .replyWith({
        content: JSON.stringify({
          need_replan: true,
          reason: 'one expression is enough',
          new_steps: ['Compute (144 + 10) / 2'],
        }),
      })
      .replyWithToolCalls([calc('(144 + 10) / 2', 'call_2')])
      .replyWith({ content: '77' })
      .replyWith(keep)
      .replyWith({ content: 'The answer is 77.' });
    const { result, bodies, events } = await run(
      planExecuteReplanPipeline(),
      'Compute 12*12, then add 10, then divide by 2',
    );
    loopback.server.assertConsumed();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 77.', partial: false });
    // The planner's shape is in its prompt; its reply is read tolerantly by the plan stage (with repair turns).
    expect(bodies[0]!.response_format).toBeUndefined();
    expect(bodies[0]!.messages[0]!.content).toContain('"dependsOn"');
    expect(result.state.plan!.steps.map((step) => [step.description, step.status])).toEqual([
      ['Compute 12*12', 'completed'],
      ['Compute (144 + 10) / 2', 'completed'],
    ]);
    expect(bodies[4]!.messages).toHaveLength(2);
    expect(bodies[4]!.messages[1]!.content).toContain('Current step (2 of 2): Compute (144 + 10) / 2');
    expect(events.filter((event) => event.type === 'replan_decision').map((event) => event.data.applied)).toEqual([
      true,
      false,
    ]);
  });

  it('a step that exhausts its tool rounds is recorded as partial', async () => {
    loopback.server
      .replyWith(plan('Look up the answer'))
      .replyWithToolCalls([{ name: 'lookup', arguments: '{"key":"answer"}', id: 'call_1' }])
      .replyWithToolCalls([{ name: 'lookup', arguments: '{"key":"answer"}', id: 'call_2' }])
      .replyWith(keep)
      .replyWith({ content: 'The answer is 42 (the step did not finish cleanly).' });
    const { result, bodies } = await run(
      planExecuteReplanPipeline({ think: { maxStepToolRounds: 2 } }),
      'Look up the answer',
    );
    loopback.server.assertConsumed();
    expect(bodies[2]!.tools).toBeUndefined();
    expect(result.state.plan!.results[0]).toMatchObject({
      outcome: 'partial',
      output: expect.stringMatching(/Latest tool results: lookup: 42/),
    });
    expect(result).toMatchObject({ status: 'completed', partial: true });
  });
});
