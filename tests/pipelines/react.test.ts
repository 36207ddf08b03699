import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { makeIds } from '../support/helpers.js';
import { flakyTool, testTools } from '../support/stage-tools.js';

const calc = (expression: string) => ({ name: 'calculator', arguments: JSON.stringify({ expression }) });

async function run(
  model: ScriptedModel,
  options: Parameters<typeof reactPipeline>[0] = {},
  task = 'What is 17 * 23 + 4?',
) {
  const events: RunEvent[] = [];
  const result = await runPipeline(
    reactPipeline(options),
    { task },
    { deps: { model, tools: testTools(), ids: makeIds('run'), onEvent: (event) => events.push(event) } },
  );
  return { result, events, types: events.map((event) => event.type) };
}

describe('react pipeline (scripted model)', () => {
  it('is context · think, act, observe, evaluate · summarize with a cap of 10, and the default guards around them', () => {
    const pipeline = reactPipeline({ guards: false });
    expect(
      [pipeline.setup, pipeline.iteration, pipeline.finalize].map((zone) => zone.map((stage) => stage.name)),
    ).toEqual([['context'], ['think', 'act', 'observe', 'evaluate'], ['summarize']]);
    const guarded = reactPipeline();
    expect([guarded.setup, guarded.iteration, guarded.finalize].map((zone) => zone.map((stage) => stage.name))).toEqual(
      [
        ['limits', 'budget-start', 'context'],
        ['budget', 'prune', 'think', 'loop-guard', 'act', 'loop-guard-history', 'observe', 'evaluate'],
        ['summarize'],
      ],
    );
    expect(pipeline.maxIterations).toBe(10);
    expect(reactPipeline({ maxIterations: 3 }).maxIterations).toBe(3);
  });

  it('one tool call, then the answer', async () => {
    const model = new ScriptedModel([{ toolCalls: [calc('17 * 23 + 4')] }, { content: '395' }]);
    const { result, types } = await run(model);
    model.assertConsumed();
    expect(result).toMatchObject({
      status: 'completed',
      answer: '395',
      partial: false,
      iterations: 2,
      stopReason: { kind: 'completed', stage: 'think' },
    });
    expect(model.requests[1]!.messages.slice(2)).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1_1', ...calc('17 * 23 + 4') }] },
      { role: 'tool', toolCallId: 'call_1_1', name: 'calculator', content: '395' },
    ]);
    // The rest of the answering iteration still ran.
    expect(result.stages.map((stage) => [stage.name, stage.calls])).toEqual([
      ['limits', 1],
      ['budget-start', 1],
      ['context', 1],
      ['budget', 2],
      ['prune', 2],
      ['think', 2],
      ['loop-guard', 2],
      ['act', 2],
      ['loop-guard-history', 2],
      ['observe', 2],
      ['evaluate', 2],
      ['summarize', 1],
    ]);
    expect(types.filter((type) => !type.startsWith('stage_'))).toEqual([
      'run_started',
      'limits',
      'context_rendered',
      'model_reply',
      'tool_call',
      'tool_result',
      'verdict',
      'model_reply',
      'answer',
      'verdict',
      'summary',
      'run_finished',
    ]);
  });

  it('two parallel tool calls in one turn, answered in call order', async () => {
    const model = new ScriptedModel([
      { toolCalls: [calc('17 * 23'), calc('391 + 4')] },
      { content: '17 * 23 = 391 and 391 + 4 = 395' },
    ]);
    const { result } = await run(model);
    expect(result.answer).toBe('17 * 23 = 391 and 391 + 4 = 395');
    expect(model.requests[1]!.messages.slice(3).map((message) => [message.role, message.content])).toEqual([
      ['tool', '391'],
      ['tool', '395'],
    ]);
    expect(result.state.act).toEqual({ executed: 2, failed: 0 });
  });

  it('a tool error the model recovers from', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'calculator', arguments: '{"expr":"17 * 23 + 4"}' }] },
      { toolCalls: [calc('17 * 23 + 4')] },
      { content: '395' },
    ]);
    const { result, events } = await run(model);
    expect(result).toMatchObject({ status: 'completed', answer: '395' });
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringMatching(/^Error \(invalid_arguments\)/),
    });
    const verdicts = events.filter((event) => event.type === 'verdict').map((event) => event.data.verdict);
    expect(verdicts).toEqual(['continue', 'continue', 'continue']);
    expect(result.state.evaluate!.history[0]!.reason).toMatch(
      /calculator failed \(invalid_arguments\): the model sees the error/,
    );
  });

  it('a transient tool error gets a retry verdict and a note asking the model to call again', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'flaky', arguments: '{}' }] },
      { toolCalls: [{ name: 'flaky', arguments: '{}' }] },
      { content: 'ok' },
    ]);
    const result = await runPipeline(
      reactPipeline(),
      { task: 'call flaky' },
      { deps: { model, tools: testTools(flakyTool(1)) } },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'ok' });
    expect(result.state.evaluate!.history.map((record) => record.verdict)).toEqual(['retry', 'continue', 'continue']);
    expect(model.requests[1]!.messages.at(-1)).toEqual({
      role: 'user',
      content: expect.stringMatching(
        /^Notes from the runtime:\n- The last tool call failed with a transient error \(flaky failed \(timeout\)\)/,
      ),
    });
    expect(result.state.nextTurn.notes).toEqual([]);
  });

  it('observe-plan-act "Max Iteration Limit", fallback "return graceful summary based on current observations": the iteration cap ends the run early with a partial summary answer', async () => {
    const model = new ScriptedModel([
      { toolCalls: [calc('17 * 23')] },
      { toolCalls: [calc('391 + 4')] },
      (request) => ({
        content: request.tools === undefined ? 'Partial: 17 * 23 + 4 is 395, not double-checked.' : 'unexpected',
      }),
    ]);
    const { result } = await run(model, { maxIterations: 2 });
    model.assertConsumed();
    expect(result).toMatchObject({
      status: 'stopped',
      partial: true,
      stopReason: { kind: 'max_iterations' },
      answer: 'Partial: 17 * 23 + 4 is 395, not double-checked.',
    });
    const summary = model.requests[2]!;
    expect(summary.purpose).toBe('summarize');
    expect(summary.messages[1]!.content).toContain('Stop reason: reached the iteration cap of 2 (max_iterations)');
    expect(summary.messages[1]!.content).toContain('calculator({"expression":"391 + 4"})\nResult: 395');
  });

  it('truncated tool arguments are retried, then the run is aborted with kind truncation and still gets a partial answer', async () => {
    const cut = {
      toolCalls: [{ name: 'calculator', arguments: '{"expression":"17 * 2' }],
      finishReason: 'length' as const,
    };
    const model = new ScriptedModel([cut, cut, cut, cut, new Error('model down')]);
    const { result, types } = await run(model);
    model.assertConsumed();
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'truncation', stage: 'think' },
      partial: true,
    });
    expect(result.state.act).toBeUndefined();
    expect(types.filter((type) => type === 'truncation_retry')).toHaveLength(3);
    expect(result.answer).toMatch(
      /^I could not finish this task: the model's tool-call arguments were cut off by the length limit 4 times in a row/,
    );
  });

  it('a model that cannot be reached fails the run; summarize still gives a non-empty partial answer', async () => {
    const model = new ScriptedModel([
      new Error('cannot reach http://127.0.0.1:9/v1: connection refused'),
      new Error('still down'),
    ]);
    const { result } = await run(model);
    expect(result.status).toBe('failed');
    expect(result.partial).toBe(true);
    expect(result.answer).toMatch(/^I could not finish this task/);
  });
});
