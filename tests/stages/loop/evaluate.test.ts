import { describe, expect, it } from 'vitest';
import { evaluate } from '../../../stages/loop/evaluate.js';
import type { RunState } from '../../../src/engine/state.js';
import type { ToolCall } from '../../../src/model/types.js';
import type { ToolResult } from '../../../src/engine/tool-port.js';
import { makeCtx, makeState, unobservedCtx } from '../../support/helpers.js';
import { planSlotFor } from '../../support/plan-slot.js';

let counter = 0;
const ok = (content = '42'): ToolResult => ({ ok: true, content, durationMs: 1 });
const transient: ToolResult = {
  ok: false,
  error: { kind: 'timeout', message: 'slow', retryable: true },
  durationMs: 1,
};
const permanent: ToolResult = {
  ok: false,
  error: { kind: 'invalid_arguments', message: 'bad', retryable: false },
  durationMs: 1,
};

/** One turn as think and act leave it. */
function turn(state: RunState, ...results: ToolResult[]): void {
  state.iteration++;
  const calls: ToolCall[] = results.map(() => ({ id: `c${++counter}`, name: 'calculator', arguments: '{}' }));
  state.turn = { toolCalls: calls, results: calls.map((call, index) => ({ call, result: results[index]! })) };
}

function withPlan(state: RunState, steps = 3): void {
  state.plan = planSlotFor({
    steps: Array.from({ length: steps }, (_, index) => ({
      description: `s${index}`,
      status: index === 0 ? 'in_progress' : 'pending',
    })),
    current: 0,
    results: [],
    source: 'planner',
  });
}

describe('evaluate stage', () => {
  it('records the verdict but builds no event data when nobody listens (it gives ctx.emit a function)', async () => {
    const state = makeState();
    const ctx = unobservedCtx();
    turn(state, ok());
    await evaluate().execute(state, ctx);
    expect(state.evaluate).toMatchObject({ verdict: 'continue', reason: '1 tool call succeeded' });
    expect(ctx.built).toEqual([]);
  });

  it('continues when every call succeeded, records the verdict in the state and as an event', async () => {
    const state = makeState();
    const ctx = makeCtx();
    turn(state, ok(), ok());
    expect(await evaluate().execute(state, ctx)).toBeUndefined();
    expect(state.evaluate).toMatchObject({
      iteration: 1,
      verdict: 'continue',
      reason: '2 tool calls succeeded',
      failures: 0,
    });
    expect(state.evaluate!.history).toEqual([{ iteration: 1, verdict: 'continue', reason: '2 tool calls succeeded' }]);
    expect(ctx.events.map((event) => [event.type, event.data])).toEqual([
      ['verdict', { verdict: 'continue', reason: '2 tool calls succeeded', step: null }],
    ]);
  });

  it('never counts an empty or failed result as success', async () => {
    const state = makeState();
    turn(state, ok(''));
    await evaluate().execute(state, makeCtx());
    expect(state.evaluate).toMatchObject({
      verdict: 'continue',
      failures: 1,
      reason: expect.stringMatching(/calculator returned nothing/),
    });
    turn(state, { ok: true, content: '(empty result)', durationMs: 1, empty: true });
    await evaluate().execute(state, makeCtx());
    expect(state.evaluate!.failures).toBe(2);
  });

  it('retries a transient error at most twice per step, then (with a plan) asks for a replan', async () => {
    const state = makeState();
    withPlan(state);
    const stage = evaluate();
    const verdicts: string[] = [];
    for (let index = 0; index < 3; index++) {
      turn(state, transient);
      await stage.execute(state, makeCtx());
      verdicts.push(state.evaluate!.verdict);
    }
    expect(verdicts).toEqual(['retry', 'retry', 'replan']);
    expect(state.nextTurn.notes).toEqual([
      'The last tool call failed with a transient error (calculator failed (timeout)); you may make the same call again.',
      'The last tool call failed with a transient error (calculator failed (timeout)); you may make the same call again.',
    ]);
    expect(state.evaluate!.reason).toMatch(/step 1 keeps failing \(calculator failed \(timeout\)\)/);
    // A new step starts with fresh counters.
    state.plan!.current = 1;
    turn(state, transient);
    await stage.execute(state, makeCtx());
    expect(state.evaluate).toMatchObject({ verdict: 'retry', retries: 1, step: 1 });
    expect(state.evaluate!.history).toHaveLength(4);
  });

  it('lets the model correct a permanent error, asks for a replan when a step keeps failing, stops when nothing can follow', async () => {
    const react = makeState();
    const stage = evaluate({ stopAfterFailures: 4 });
    const verdicts: string[] = [];
    for (let index = 0; index < 4; index++) {
      turn(react, permanent);
      const signal = await stage.execute(react, makeCtx());
      verdicts.push(react.evaluate!.verdict);
      if (index === 3) expect(signal).toMatchObject({ type: 'abort_run', kind: 'evaluate_stop' });
    }
    expect(verdicts).toEqual(['continue', 'continue', 'continue', 'stop']);
    expect(react.evaluate!.reason).toMatch(/failed in 4 turns in a row.*nothing useful can follow/);

    const planned = makeState();
    withPlan(planned);
    const planVerdicts: string[] = [];
    for (let index = 0; index < 3; index++) {
      turn(planned, permanent);
      await stage.execute(planned, makeCtx());
      planVerdicts.push(planned.evaluate!.verdict);
    }
    expect(planVerdicts).toEqual(['continue', 'continue', 'replan']);
  });

  it('resets the failure count after a successful turn', async () => {
    const state = makeState();
    const stage = evaluate();
    for (const result of [permanent, permanent, ok(), permanent]) {
      turn(state, result);
      await stage.execute(state, makeCtx());
    }
    expect(state.evaluate).toMatchObject({ verdict: 'continue', failures: 1 });
  });

  it('asks for a replan once per step when the run has used more than twice the plan length in iterations', async () => {
    const state = makeState();
    withPlan(state, 2);
    state.iteration = 4;
    turn(state, ok());
    await evaluate().execute(state, makeCtx());
    expect(state.evaluate).toMatchObject({
      verdict: 'replan',
      reason: "the run has used 5 iterations, more than twice the plan's 2 steps",
    });
    turn(state, ok());
    await evaluate().execute(state, makeCtx());
    expect(state.evaluate!.verdict).toBe('continue');
  });

  it('continues after a turn with no tool call (an answer or a finished step)', async () => {
    const state = makeState({ answer: 'done' });
    state.iteration = 1;
    await evaluate().execute(state, makeCtx());
    expect(state.evaluate).toMatchObject({ verdict: 'continue', reason: 'the model gave its answer' });
  });
});
