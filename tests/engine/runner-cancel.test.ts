// runPipeline cancelled: the running stage sees its signal, finalize gets a fresh one and its own time limit, and a
// deadline a stage sets stops the run with its kind.
import { describe, expect, it } from 'vitest';
import { definePipeline, insertAfter } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { breakLoop } from '../../src/engine/signal.js';
import type { Stage, StageContext } from '../../src/engine/stage.js';
import { step, trail } from './runner-steps.js';

describe('cancellation', () => {
  it('the running stage sees the aborted signal; finalize gets a fresh one; status cancelled', async () => {
    const controller = new AbortController();
    let finalizeSignalAborted: boolean | undefined;
    const slow: Stage = {
      name: 'think',
      execute: (_state, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal!.addEventListener('abort', () => reject(new Error('request aborted')), { once: true });
          setImmediate(() => controller.abort());
        }),
    };
    const summarize: Stage = {
      name: 'summarize',
      async execute(_state, ctx) {
        finalizeSignalAborted = ctx.signal!.aborted;
      },
    };
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [slow, step('act')],
      finalize: [summarize],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' }, { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(result.stopReason).toEqual({
      kind: 'cancelled',
      stage: 'think',
      message: 'the run was cancelled by its caller',
    });
    expect(result.error).toBeUndefined();
    expect(finalizeSignalAborted).toBe(false);
    expect(trail(result.state)).toEqual([]);
  });

  it('the runner checks the signal between stages', async () => {
    const controller = new AbortController();
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [step('think', () => void controller.abort()), step('act')],
      finalize: [step('summarize')],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' }, { signal: controller.signal });
    expect(trail(result.state)).toEqual(['think#1', 'summarize#1']);
    // The stage that was running when the cancel came is the one named, not the next one the runner skipped.
    expect(result.stopReason).toMatchObject({ kind: 'cancelled', stage: 'think' });
  });

  it('an already aborted signal runs only finalize', async () => {
    const pipeline = definePipeline({
      name: 'demo',
      setup: [step('context')],
      iteration: [step('think')],
      finalize: [step('summarize')],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' }, { signal: AbortSignal.abort() });
    expect(result.status).toBe('cancelled');
    expect(trail(result.state)).toEqual(['summarize']);
  });

  it('a finalize stage that hangs is cut off by the finalize time limit and later ones are skipped', async () => {
    const hang: Stage = { name: 'hang', execute: () => new Promise(() => {}) };
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [step('think', () => breakLoop('ok'))],
      finalize: [hang, step('after')],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' }, { finalizeTimeoutMs: 30 });
    expect(result.status).toBe('completed');
    expect(result.warnings.map((warning) => [warning.stage, warning.message])).toEqual([
      ['hang', 'did not finish within the finalize time limit of 30 ms'],
      ['after', 'skipped: the finalize time limit of 30 ms had passed'],
    ]);
  });

  it('the finalize time limit counts from the start of finalize, also when earlier finalize stages were synchronous', async () => {
    const slowSync: Stage = {
      name: 'slow-sync',
      execute: () => {
        const until = performance.now() + 300;
        while (performance.now() < until);
      },
    };
    // 300 ms of the 400 are spent synchronously, so the hanging stage's abort is due ~100 ms after it starts (400 if the
    // limit restarted per stage). A marker due 250 ms after the start tells the two apart by timer order, not by a clock
    // read after the fact: timers fire in the order they are due, however late a busy machine runs them.
    const seen: string[] = [];
    const hang: Stage = {
      name: 'hang',
      execute: (_state, ctx) => {
        ctx.signal!.addEventListener('abort', () => seen.push('aborted'));
        setTimeout(() => seen.push('marker'), 250);
        return new Promise(() => {});
      },
    };
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [step('think', () => breakLoop('ok'))],
      finalize: [slowSync, hang],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' }, { finalizeTimeoutMs: 400 });
    expect(seen[0]).toBe('aborted');
    expect(result.warnings.map((warning) => warning.stage)).toEqual(['hang']);
  });

  it('a stage that first reads ctx.signal after its caller aborted sees it aborted, with the caller reason', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const late: Stage = {
      name: 'think',
      async execute(_state, ctx) {
        controller.abort(new Error('stop now'));
        seen = ctx.signal;
      },
    };
    const result = await runPipeline(
      definePipeline({ name: 'demo', iteration: [late, step('act')], maxIterations: 5 }),
      { task: 't' },
      { signal: controller.signal },
    );
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).message).toBe('stop now');
    expect(result.stopReason).toMatchObject({
      kind: 'cancelled',
      stage: 'think',
      message: 'the run was cancelled by its caller: stop now',
    });
  });

  it('a hung finalize stage that reads ctx.signal after the time limit sees it aborted', async () => {
    let held: StageContext | undefined;
    const hang: Stage = { name: 'hang', execute: (_state, ctx) => ((held = ctx), new Promise(() => {})) };
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [step('think', () => breakLoop('ok'))],
      finalize: [hang],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' }, { finalizeTimeoutMs: 10 });
    expect(result.warnings.map((warning) => warning.stage)).toEqual(['hang']);
    // The stage, still hung, reads its signal for the first time now that the run has given up on it.
    const seen = held?.signal;
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).message).toBe('finalize time limit reached');
  });

  it('ctx.signal is undefined when nothing can abort the run, a signal that aborts when something can; in finalize it always is', async () => {
    const seen: Array<[string, boolean | undefined]> = [];
    const look = (name: string): Stage => ({
      name,
      execute(_state, ctx) {
        const signal = ctx.signal;
        seen.push([
          `${ctx.zone}:${name}`,
          signal === undefined ? undefined : signal instanceof AbortSignal && !signal.aborted,
        ]);
      },
    });
    const setsDeadline: Stage = {
      name: 'deadline',
      execute: (_state, ctx) => ctx.setDeadline(ctx.deps.clock.now() + 60_000, 'time', 'budget_time'),
    };
    const plain = definePipeline({
      name: 'plain',
      setup: [look('before')],
      iteration: [look('think'), step('stop', () => breakLoop('ok'))],
      finalize: [look('summarize')],
      maxIterations: 3,
    });
    await runPipeline(plain, { task: 't' });
    expect(seen.splice(0)).toEqual([
      ['setup:before', undefined],
      ['iteration:think', undefined],
      ['finalize:summarize', true],
    ]);

    await runPipeline(plain, { task: 't' }, { signal: new AbortController().signal });
    expect(seen.splice(0)).toEqual([
      ['setup:before', true],
      ['iteration:think', true],
      ['finalize:summarize', true],
    ]);

    const withDeadline = insertAfter(plain, 'before', setsDeadline);
    await runPipeline(withDeadline, { task: 't' });
    expect(seen.splice(0)).toEqual([
      ['setup:before', undefined],
      ['iteration:think', true],
      ['finalize:summarize', true],
    ]);

    // The signal a stage is given aborts when the caller's does.
    const controller = new AbortController();
    let given: AbortSignal | undefined;
    const cancels: Stage = {
      name: 'think',
      execute: (_state, ctx) => void ((given = ctx.signal), controller.abort(new Error('enough'))),
    };
    const cancelled = await runPipeline(
      definePipeline({ name: 'cancels', iteration: [cancels], maxIterations: 3 }),
      { task: 't' },
      { signal: controller.signal },
    );
    expect(cancelled.status).toBe('cancelled');
    expect(given?.aborted).toBe(true);
    expect((given?.reason as Error).message).toBe('enough');
  });

  it('a deadline set by a stage aborts the call in flight and stops the run with its kind', async () => {
    const guard: Stage = {
      name: 'time-guard',
      async execute(_state, ctx) {
        if (ctx.zone === 'setup')
          ctx.setDeadline(ctx.deps.clock.now() + 20, 'time budget of 20 ms spent', 'budget_time');
      },
    };
    const hang: Stage = {
      name: 'think',
      execute: (_state, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.signal!.addEventListener('abort', () => reject(ctx.signal!.reason), { once: true }),
        ),
    };
    const pipeline = definePipeline({
      name: 'demo',
      setup: [guard],
      iteration: [hang],
      finalize: [step('summarize')],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(result.status).toBe('stopped');
    expect(result.stopReason).toEqual({
      kind: 'budget_time',
      stage: 'time-guard',
      message: 'time budget of 20 ms spent',
    });
    expect(trail(result.state)).toEqual(['summarize#1']);
  });
});
