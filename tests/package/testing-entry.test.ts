// stageloop/testing: runStage gives a stage the real runner's context, against the state the test built.
import { describe, expect, it } from 'vitest';
import { abortRun, breakLoop, type Stage } from '../../src/index.js';
import { makeClock, makeState, runStage, ScriptedModel, stageContext } from '../../src/testing/index.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    checked: { ok: boolean };
  }
}
import { think } from '../../stages/index.js';

declare module '../../src/index.js' {
  interface RunEvents {
    counted: { calls: number };
  }
}

describe('runStage', () => {
  it('runs the stage once on the given state, in the iteration zone by default', async () => {
    let calls = 0;
    const stage: Stage = {
      name: 'count',
      execute(state, ctx) {
        calls += 1;
        state.answer = `${ctx.zone} ${ctx.iteration}`;
        ctx.emit('counted', { calls });
      },
    };
    const state = makeState();
    const run = await runStage(stage, state);
    expect(calls).toBe(1);
    expect(state.answer).toBe('iteration 1');
    expect(state.iteration).toBe(1);
    expect(run.signal).toBeUndefined();
    expect(run.context).toEqual({ zone: 'iteration', iteration: 1, stage: 'count' });
    expect(run.events.map((event) => [event.type, event.stage, event.data])).toEqual([
      ['counted', 'count', { calls: 1 }],
    ]);
    expect(run.result.status).toBe('completed');
  });

  it('gives the iteration asked for, and the signal the stage returned', async () => {
    const stage: Stage = {
      name: 'stopper',
      execute: (_state, ctx) => (ctx.iteration === 3 ? breakLoop('third', 'done') : abortRun('not third')),
    };
    const run = await runStage(stage, makeState(), { iteration: 3 });
    expect(run.context?.iteration).toBe(3);
    expect(run.signal).toMatchObject({ type: 'break_loop', kind: 'done', reason: 'third' });
    expect(run.result.stopReason).toMatchObject({ kind: 'done', stage: 'stopper' });
  });

  it('has the real signals: none to spare in the loop, the time limit in finalize', async () => {
    const seen: Array<[string, boolean]> = [];
    const stage: Stage = {
      name: 'look',
      execute: (_state, ctx) => void seen.push([ctx.zone, ctx.signal !== undefined]),
    };
    await runStage(stage, makeState(), { zone: 'setup' });
    await runStage(stage, makeState());
    await runStage(stage, makeState(), { zone: 'finalize' });
    await runStage(stage, makeState(), { signal: new AbortController().signal });
    expect(seen).toEqual([
      ['setup', false],
      ['iteration', false],
      ['finalize', true],
      ['iteration', true],
    ]);
  });

  it('a deadline that passes aborts the stage through ctx.signal and stops the run with its kind', async () => {
    const clock = makeClock();
    const stage: Stage = {
      name: 'slow',
      async execute(_state, ctx) {
        ctx.setDeadline(clock.now() + 20, 'too slow', 'budget_time');
        await new Promise<void>((resolve) => ctx.signal!.addEventListener('abort', () => resolve(), { once: true }));
        throw ctx.signal!.reason;
      },
    };
    const run = await runStage(stage, makeState(), { deps: { clock } });
    expect(run.result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'budget_time', stage: 'slow', message: 'too slow' },
    });
  });

  it('a throw fails the run and names the stage', async () => {
    const stage: Stage = {
      name: 'broken',
      execute: () => {
        throw new Error('boom');
      },
    };
    const run = await runStage(stage, makeState());
    expect(run.result).toMatchObject({ status: 'failed', error: { stage: 'broken', message: 'boom' } });
  });

  it('runs a built-in stage with ScriptedModel', async () => {
    const model = new ScriptedModel([{ content: 'The answer is 4.' }]);
    const state = makeState({ task: 'What is 2 + 2?', messages: [{ role: 'user', content: 'What is 2 + 2?' }] });
    const run = await runStage(think({ useTools: false }), state, { deps: { model } });
    expect(state.answer).toBe('The answer is 4.');
    expect(run.signal).toMatchObject({ type: 'break_loop', kind: 'completed' });
    expect(model.requests).toHaveLength(1);
  });
});

describe('stageContext', () => {
  it("is the runner's context: signals by the same rules, events in the run's shape", () => {
    expect(stageContext().signal).toBeUndefined();
    expect(stageContext({ zone: 'finalize' }).signal).toBeDefined();
    expect(stageContext({ signal: new AbortController().signal }).signal).toBeDefined();
    const ctx = stageContext({ zone: 'setup', stage: 'probe', iteration: 0 });
    ctx.emit('checked', { ok: true });
    expect(ctx.events).toEqual([
      {
        runId: 'run-test',
        seq: 1,
        type: 'checked',
        zone: 'setup',
        stage: 'probe',
        iteration: 0,
        at: 1_700_000_000_000,
        data: { ok: true },
      },
    ]);
    expect({ ...ctx }.stage).toBe('probe'); // a stage may spread or destructure its context
  });

  it('a deadline that has passed aborts ctx.signal at once; a later one arms a timer until dispose', () => {
    const clock = makeClock();
    const ctx = stageContext({ deps: { clock } });
    ctx.setDeadline(clock.now() + 60_000, 'later', 'budget_time');
    expect(ctx.signal?.aborted).toBe(false); // a deadline makes the run abortable
    ctx.setDeadline(clock.now() - 1, 'too late', 'budget_time');
    expect(ctx.signal?.aborted).toBe(true);
    expect(ctx.signal?.reason).toMatchObject({ kind: 'budget_time', message: 'too late' });
    expect(ctx.deadlines.map((deadline) => deadline.reason)).toEqual(['later', 'too late']);
    ctx.dispose();
  });

  it("cancel() and the caller's signal abort ctx.signal; in finalize only cancel() does, as finalize has its own", () => {
    const caller = new AbortController();
    const ctx = stageContext({ signal: caller.signal });
    caller.abort(new Error('stop'));
    expect(ctx.signal?.aborted).toBe(true);
    const finalize = stageContext({ zone: 'finalize' });
    expect(finalize.signal?.aborted).toBe(false);
    finalize.cancel(new Error('time limit'));
    expect(finalize.signal?.aborted).toBe(true);
  });
});
