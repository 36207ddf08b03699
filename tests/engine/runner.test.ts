import { describe, expect, it } from 'vitest';
import { definePipeline, insertAfter, stageNames } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { abortRun, breakLoop, type Signal } from '../../src/engine/signal.js';
import type { RunEvent, RunTracer, Stage, StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    thought: { words: number };
    loose: { aborted: boolean };
  }
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    trail: string[];
  }
}

/** A stage that appends its name to state.trail and then does what `behave` says. */
function step(name: string, behave: (state: RunState) => Signal | void | Promise<Signal | void> = () => undefined): Stage {
  return {
    name,
    async execute(state) {
      (state.trail ??= []).push(state.iteration > 0 ? `${name}#${state.iteration}` : name);
      return behave(state);
    },
  };
}

const trail = (state: RunState) => state.trail ?? [];

describe('runPipeline zones', () => {
  it('runs setup once, iteration in order until BreakLoop, finalize once', async () => {
    const pipeline = definePipeline({
      name: 'demo',
      setup: [step('one'), step('two')],
      iteration: [step('think', (state) => (state.iteration === 2 ? breakLoop('done') : undefined)), step('act')],
      finalize: [step('summarize')],
      maxIterations: 10,
    });
    const result = await runPipeline(pipeline, { task: 'count' });
    expect(trail(result.state)).toEqual(['one', 'two', 'think#1', 'act#1', 'think#2', 'act#2', 'summarize#2']);
    expect(result.status).toBe('completed');
    expect(result.stopReason).toEqual({ kind: 'completed', stage: 'think', message: 'done' });
    expect(result.iterations).toBe(2);
    expect(result.stages.map((stage) => [stage.zone, stage.name, stage.calls])).toEqual([
      ['setup', 'one', 1], ['setup', 'two', 1], ['iteration', 'think', 2], ['iteration', 'act', 2], ['finalize', 'summarize', 1],
    ]);
  });

  it('AbortRun in an iteration stops at once; finalize still runs', async () => {
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [step('think', () => abortRun('no way forward', 'guard_stop')), step('act')],
      finalize: [step('summarize')],
      maxIterations: 10,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(trail(result.state)).toEqual(['think#1', 'summarize#1']);
    expect(result.status).toBe('stopped');
    expect(result.stopReason).toEqual({ kind: 'guard_stop', stage: 'think', message: 'no way forward' });
  });

  it('BreakLoop in setup skips the iteration zone but finishes setup, status completed', async () => {
    const pipeline = definePipeline({
      name: 'demo',
      setup: [step('cache', () => breakLoop('cache hit', 'cached')), step('two')],
      iteration: [step('think')],
      finalize: [step('summarize')],
      maxIterations: 3,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(trail(result.state)).toEqual(['cache', 'two', 'summarize']);
    expect(result.status).toBe('completed');
    expect(result.stopReason.kind).toBe('cached');
  });

  it('AbortRun in setup stops setup and skips the loop, status stopped', async () => {
    const pipeline = definePipeline({
      name: 'demo',
      setup: [step('screen', () => abortRun('hostile task', 'guard_injection')), step('two')],
      iteration: [step('think')],
      finalize: [step('summarize')],
      maxIterations: 3,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(trail(result.state)).toEqual(['screen', 'summarize']);
    expect(result.status).toBe('stopped');
    expect(result.stopReason).toEqual({ kind: 'guard_injection', stage: 'screen', message: 'hostile task' });
  });

  it('enforces maxIterations with no guard stage', async () => {
    const pipeline = definePipeline({ name: 'demo', iteration: [step('think')], finalize: [step('summarize')], maxIterations: 3 });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(trail(result.state)).toEqual(['think#1', 'think#2', 'think#3', 'summarize#3']);
    expect(result.status).toBe('stopped');
    expect(result.stopReason).toEqual({ kind: 'max_iterations', stage: null, message: 'reached the iteration cap of 3' });
    expect(result.iterations).toBe(3);
  });

  it('a thrown error fails the run naming stage and iteration, keeps partial state, finalize runs', async () => {
    const boom = new Error('disk on fire');
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [step('think'), step('act', (state) => { if (state.iteration === 2) throw boom; })],
      finalize: [step('summarize')],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(result.status).toBe('failed');
    expect(result.stopReason).toEqual({ kind: 'error', stage: 'act', message: 'stage "act" failed: disk on fire' });
    expect(result.error).toMatchObject({ stage: 'act', zone: 'iteration', iteration: 2, message: 'disk on fire' });
    expect(result.error?.cause).toBe(boom);
    expect(trail(result.state)).toEqual(['think#1', 'act#1', 'think#2', 'act#2', 'summarize#2']);
  });

  it('finalize: every stage runs even after one throws or steers; problems become warnings', async () => {
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [step('think', () => breakLoop('answered'))],
      finalize: [step('first', () => { throw new Error('cleanup failed'); }), step('second', () => abortRun('ignored')), step('third')],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(trail(result.state)).toEqual(['think#1', 'first#1', 'second#1', 'third#1']);
    expect(result.status).toBe('completed');
    expect(result.warnings).toEqual([expect.objectContaining({ stage: 'first', message: 'cleanup failed' })]);
  });

  it('the first stage to steer wins', async () => {
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [step('think', () => breakLoop('answer ready')), step('guard', () => abortRun('too late', 'budget_tokens'))],
      finalize: [],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(result.stopReason).toEqual({ kind: 'completed', stage: 'think', message: 'answer ready' });
    expect(result.status).toBe('completed');
  });

  it('a stage returning something that is not a signal fails clearly', async () => {
    const bad: Stage = { name: 'bad', execute: async () => 'oops' as unknown as Signal };
    const result = await runPipeline(definePipeline({ name: 'demo', iteration: [bad], maxIterations: 2 }), { task: 't' });
    expect(result.status).toBe('failed');
    expect(result.stopReason.message).toMatch(/returned something that is not a signal/);
  });

  it('a stage that throws something other than an Error still gets a readable message', async () => {
    const odd: Stage = { name: 'think', execute: () => Promise.reject({ code: 'E42', detail: 'quota' }) };
    const result = await runPipeline(definePipeline({ name: 'demo', iteration: [odd], maxIterations: 5 }), { task: 't' });
    expect(result.error?.message).toBe('{"code":"E42","detail":"quota"}');
    expect(result.stopReason.message).toBe('stage "think" failed: {"code":"E42","detail":"quota"}');
  });

  it('a stage whose execute throws synchronously fails the run like one that rejects', async () => {
    const sync: Stage = { name: 'think', execute: () => { throw new Error('not even async'); } };
    const result = await runPipeline(definePipeline({ name: 'demo', iteration: [sync], finalize: [step('summarize')], maxIterations: 5 }), { task: 't' });
    expect(result).toMatchObject({ status: 'failed', stopReason: { kind: 'error', stage: 'think' }, error: { stage: 'think', message: 'not even async' } });
    expect(trail(result.state)).toEqual(['summarize#1']);
  });

  it('a stage may return without a promise: its signal steers the run like an awaited one', async () => {
    let turns = 0;
    const counter: Stage = { name: 'count', execute: () => (++turns === 3 ? breakLoop('three turns', 'done_counting') : undefined) };
    const sync: Stage = { name: 'after', execute: (state) => void (state.trail ??= []).push(`after#${state.iteration}`) };
    const finish: Stage = { name: 'finish', execute: () => abortRun('finalize steers are ignored') };
    const pipeline = definePipeline({ name: 'sync', iteration: [counter, sync], finalize: [finish], maxIterations: 10 });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(result.status).toBe('completed');
    expect(result.stopReason).toEqual({ kind: 'done_counting', stage: 'count', message: 'three turns' });
    expect(trail(result.state)).toEqual(['after#1', 'after#2', 'after#3']);
    expect(result.stages.find((stats) => stats.name === 'finish')?.calls).toBe(1);

    const stop: Stage = { name: 'stop', execute: () => abortRun('no more', 'guard_said_so') };
    const stopped = await runPipeline(definePipeline({ name: 'sync-abort', iteration: [stop, sync], maxIterations: 10 }), { task: 't' });
    expect(stopped.status).toBe('stopped');
    expect(stopped.stopReason).toEqual({ kind: 'guard_said_so', stage: 'stop', message: 'no more' });
    expect(trail(stopped.state)).toEqual([]);
  });

  it('a thenable that is not a native promise is awaited', async () => {
    const thenable: Stage = {
      name: 'thenable',
      execute: () => ({ then: (resolve: (signal: Signal) => void) => setTimeout(() => resolve(breakLoop('late answer')), 5) }) as unknown as Promise<Signal>,
    };
    const result = await runPipeline(definePipeline({ name: 'thenable', iteration: [thenable], maxIterations: 5 }), { task: 't' });
    expect(result.stopReason).toEqual({ kind: 'completed', stage: 'thenable', message: 'late answer' });
  });

  it('rejects only invalid arguments', async () => {
    await expect(runPipeline({ name: 'x' } as never, { task: 't' })).rejects.toThrow(/made by definePipeline/);
    const pipeline = definePipeline({ name: 'demo', iteration: [step('think')], maxIterations: 1 });
    await expect(runPipeline(pipeline, {} as never)).rejects.toThrow(/input must be an object like \{ task/);
  });
});

describe('cancellation', () => {
  it('the running stage sees the aborted signal; finalize gets a fresh one; status cancelled', async () => {
    const controller = new AbortController();
    let finalizeSignalAborted: boolean | undefined;
    const slow: Stage = {
      name: 'think',
      execute: (_state, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => reject(new Error('request aborted')), { once: true });
          setImmediate(() => controller.abort());
        }),
    };
    const summarize: Stage = { name: 'summarize', async execute(_state, ctx) { finalizeSignalAborted = ctx.signal.aborted; } };
    const pipeline = definePipeline({ name: 'demo', iteration: [slow, step('act')], finalize: [summarize], maxIterations: 5 });
    const result = await runPipeline(pipeline, { task: 't' }, { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(result.stopReason).toEqual({ kind: 'cancelled', stage: 'think', message: 'the run was cancelled by its caller' });
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
    const pipeline = definePipeline({ name: 'demo', setup: [step('context')], iteration: [step('think')], finalize: [step('summarize')], maxIterations: 5 });
    const result = await runPipeline(pipeline, { task: 't' }, { signal: AbortSignal.abort() });
    expect(result.status).toBe('cancelled');
    expect(trail(result.state)).toEqual(['summarize']);
  });

  it('a finalize stage that hangs is cut off by the finalize time limit and later ones are skipped', async () => {
    const hang: Stage = { name: 'hang', execute: () => new Promise(() => {}) };
    const pipeline = definePipeline({ name: 'demo', iteration: [step('think', () => breakLoop('ok'))], finalize: [hang, step('after')], maxIterations: 5 });
    const result = await runPipeline(pipeline, { task: 't' }, { finalizeTimeoutMs: 30 });
    expect(result.status).toBe('completed');
    expect(result.warnings.map((warning) => [warning.stage, warning.message])).toEqual([
      ['hang', 'did not finish within the finalize time limit of 30 ms'],
      ['after', 'skipped: the finalize time limit of 30 ms had passed'],
    ]);
  });

  it('the finalize time limit counts from the start of finalize, also when earlier finalize stages were synchronous', async () => {
    const slowSync: Stage = { name: 'slow-sync', execute: () => { const until = performance.now() + 300; while (performance.now() < until); } };
    const hang: Stage = { name: 'hang', execute: () => new Promise(() => {}) };
    const pipeline = definePipeline({ name: 'demo', iteration: [step('think', () => breakLoop('ok'))], finalize: [slowSync, hang], maxIterations: 5 });
    const started = performance.now();
    const result = await runPipeline(pipeline, { task: 't' }, { finalizeTimeoutMs: 400 });
    // 300 ms of the 400 were spent synchronously, so the hanging stage is cut about 100 ms later (not 400: ~700 in all).
    expect(performance.now() - started).toBeLessThan(600);
    expect(result.warnings.map((warning) => warning.stage)).toEqual(['hang']);
  });

  it('a stage that first reads ctx.signal after its caller aborted sees it aborted, with the caller reason', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const late: Stage = { name: 'think', async execute(_state, ctx) { controller.abort(new Error('stop now')); seen = ctx.signal; } };
    const result = await runPipeline(definePipeline({ name: 'demo', iteration: [late, step('act')], maxIterations: 5 }), { task: 't' }, { signal: controller.signal });
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).message).toBe('stop now');
    expect(result.stopReason).toMatchObject({ kind: 'cancelled', stage: 'think', message: 'the run was cancelled by its caller: stop now' });
  });

  it('a hung finalize stage that reads ctx.signal after the time limit sees it aborted', async () => {
    let held: StageContext | undefined;
    const hang: Stage = { name: 'hang', execute: (_state, ctx) => ((held = ctx), new Promise(() => {})) };
    const pipeline = definePipeline({ name: 'demo', iteration: [step('think', () => breakLoop('ok'))], finalize: [hang], maxIterations: 5 });
    const result = await runPipeline(pipeline, { task: 't' }, { finalizeTimeoutMs: 10 });
    expect(result.warnings.map((warning) => warning.stage)).toEqual(['hang']);
    // The stage, still hung, reads its signal for the first time now that the run has given up on it.
    const seen = held?.signal;
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).message).toBe('finalize time limit reached');
  });

  it('signalIfAbortable is the run signal only when something can abort the run; in finalize it always is', async () => {
    const seen: Array<[string, boolean | undefined]> = [];
    const look = (name: string): Stage => ({
      name,
      execute(_state, ctx) {
        const signal = ctx.signalIfAbortable;
        seen.push([`${ctx.zone}:${name}`, signal === undefined ? undefined : signal === ctx.signal]);
      },
    });
    const setsDeadline: Stage = { name: 'deadline', execute: (_state, ctx) => ctx.setDeadline(ctx.deps.clock.now() + 60_000, 'time', 'budget_time') };
    const plain = definePipeline({ name: 'plain', setup: [look('before')], iteration: [look('think'), step('stop', () => breakLoop('ok'))], finalize: [look('summarize')], maxIterations: 3 });
    await runPipeline(plain, { task: 't' });
    expect(seen.splice(0)).toEqual([['setup:before', undefined], ['iteration:think', undefined], ['finalize:summarize', true]]);

    await runPipeline(plain, { task: 't' }, { signal: new AbortController().signal });
    expect(seen.splice(0)).toEqual([['setup:before', true], ['iteration:think', true], ['finalize:summarize', true]]);

    const withDeadline = insertAfter(plain, 'before', setsDeadline);
    await runPipeline(withDeadline, { task: 't' });
    expect(seen.splice(0)).toEqual([['setup:before', undefined], ['iteration:think', true], ['finalize:summarize', true]]);
  });

  it('a deadline set by a stage aborts the call in flight and stops the run with its kind', async () => {
    const guard: Stage = { name: 'time-guard', async execute(_state, ctx) { if (ctx.zone === 'setup') ctx.setDeadline(ctx.deps.clock.now() + 20, 'time budget of 20 ms spent', 'budget_time'); } };
    const hang: Stage = {
      name: 'think',
      execute: (_state, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })),
    };
    const pipeline = definePipeline({ name: 'demo', setup: [guard], iteration: [hang], finalize: [step('summarize')], maxIterations: 5 });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(result.status).toBe('stopped');
    expect(result.stopReason).toEqual({ kind: 'budget_time', stage: 'time-guard', message: 'time budget of 20 ms spent' });
    expect(trail(result.state)).toEqual(['summarize#1']);
  });
});

describe('events', () => {
  it('reports run, stage and custom events to deps.onEvent', async () => {
    const events: RunEvent[] = [];
    const noisy: Stage = { name: 'think', async execute(_state, ctx) { ctx.emit('thought', { words: 3 }); return breakLoop('done'); } };
    await runPipeline(definePipeline({ name: 'demo', iteration: [noisy], maxIterations: 2 }), { task: 't' }, { deps: { onEvent: (event) => events.push(event) } });
    expect(events.map((event) => `${event.type}:${event.stage ?? '-'}`)).toEqual([
      'run_started:-', 'stage_started:think', 'thought:think', 'stage_finished:think', 'run_finished:-',
    ]);
    expect(events[2]).toMatchObject({ zone: 'iteration', iteration: 1, data: { words: 3 } });
  });

  it('a stage may destructure or spread its context: signal, emit and setDeadline stay usable', async () => {
    const events: RunEvent[] = [];
    let spreadKeys: string[] = [];
    let spreadSignal: AbortSignal | undefined;
    const loose: Stage = {
      name: 'think',
      async execute(_state, ctx) {
        const { emit, signal } = ctx;
        emit('loose', { aborted: signal.aborted });
        const copy = { ...ctx };
        spreadKeys = Object.keys(copy);
        spreadSignal = copy.signal;
        return breakLoop('done');
      },
    };
    await runPipeline(definePipeline({ name: 'demo', iteration: [loose], maxIterations: 2 }), { task: 't' }, { deps: { onEvent: (event) => events.push(event) } });
    expect(events.find((event) => event.type === 'loose')?.data).toEqual({ aborted: false });
    expect(spreadKeys).toEqual(expect.arrayContaining(['signal', 'deps', 'zone', 'iteration', 'stage', 'emit', 'setDeadline']));
    expect(spreadSignal).toBeInstanceOf(AbortSignal);
  });

  it('ctx.observed says whether anyone listens, so stages can skip building event data', async () => {
    const seen: boolean[] = [];
    const probe: Stage = { name: 'think', async execute(_state, ctx) { seen.push(ctx.observed); return breakLoop('done'); } };
    const pipeline = definePipeline({ name: 'demo', iteration: [probe], maxIterations: 2 });
    await runPipeline(pipeline, { task: 't' });
    await runPipeline(pipeline, { task: 't' }, { deps: { onEvent: () => {} } });
    expect(seen).toEqual([false, true]);
  });
});

describe('stateless stages', () => {
  it('one pipeline instance serves 200 concurrent runs, each keeping only its own data', async () => {
    const randomPause = () => new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 4)));
    const countdown: Stage = {
      name: 'countdown',
      async execute(state) {
        await randomPause();
        const remaining = Number(state.input.task) - (state.iteration - 1);
        (state.trail ??= []).push(`${state.runId}:${remaining}`);
        await randomPause();
        if (remaining === 0) {
          state.answer = `${state.runId} counted ${state.input.task}`;
          return breakLoop('counted down');
        }
      },
    };
    const pipeline = definePipeline({ name: 'countdown', iteration: [countdown], maxIterations: 20 });
    const results = await Promise.all(Array.from({ length: 200 }, (_, index) => runPipeline(pipeline, { task: String(index % 7) })));
    for (const [index, result] of results.entries()) {
      const start = index % 7;
      expect(result.status).toBe('completed');
      expect(result.answer).toBe(`${result.runId} counted ${start}`);
      expect(trail(result.state)).toEqual(Array.from({ length: start + 1 }, (_, step) => `${result.runId}:${start - step}`));
    }
    expect(new Set(results.map((result) => result.runId)).size).toBe(200);
  });
});

describe('JSON-only state', () => {
  it('the state survives a JSON round trip at every stage boundary', async () => {
    let pipeline = definePipeline({
      name: 'demo',
      setup: [step('context')],
      iteration: [step('think', (state) => { state.answer = 'x'; return state.iteration === 2 ? breakLoop('done') : undefined; })],
      finalize: [step('summarize')],
      maxIterations: 5,
    });
    const checks: number[] = [];
    const checker = (name: string): Stage => ({
      name,
      async execute(state) {
        expect(JSON.parse(JSON.stringify(state))).toEqual(state);
        checks.push(1);
      },
    });
    for (const name of stageNames(pipeline)) pipeline = insertAfter(pipeline, name, checker(`check-after-${name}`));
    await runPipeline(pipeline, { task: 't' });
    expect(checks.length).toBe(1 + 2 + 1);
  });
});

describe('run ids', () => {
  it('are 32 random hex digits by default, distinct across runs (past the 256 ids a random pool holds)', async () => {
    const pipeline = definePipeline({ name: 'ids', iteration: [step('stop', () => breakLoop('ok'))], maxIterations: 1 });
    const results = await Promise.all(Array.from({ length: 700 }, () => runPipeline(pipeline, { task: 't' })));
    const ids = results.map((result) => result.runId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the tracer seam', () => {
  function countingTracer(enabled: (() => boolean) | undefined): { tracer: RunTracer; wrapped: string[] } {
    const wrapped: string[] = [];
    const tracer: RunTracer = {
      run: (_info, body) => (wrapped.push('run'), body()),
      iteration: (info, body) => (wrapped.push(`iteration ${info.iteration}`), body()),
      stage: (info, body) => (wrapped.push(`stage ${info.name}`), body()),
    };
    if (enabled !== undefined) tracer.enabled = enabled;
    return { tracer, wrapped };
  }
  const pipeline = definePipeline({ name: 'demo', iteration: [step('think', () => breakLoop('ok'))], finalize: [step('summarize')], maxIterations: 3 });

  it('wraps the run, each iteration and each stage when the tracer is enabled or does not say', async () => {
    for (const enabled of [undefined, () => true, () => { throw new Error('broken check'); }]) {
      const { tracer, wrapped } = countingTracer(enabled);
      const result = await runPipeline(pipeline, { task: 't' }, { deps: { tracer } });
      expect(result.status).toBe('completed');
      expect(wrapped).toEqual(['run', 'iteration 1', 'stage think', 'stage summarize']);
    }
  });

  it('gives a tracer info it may keep: each call its own object, as it was at that call', async () => {
    const kept: Array<{ runId: string; iteration: number; name?: string; zone?: string }> = [];
    const tracer: RunTracer = {
      run: (_info, body) => body(),
      iteration: (info, body) => (kept.push(info), body()),
      stage: (info, body) => (kept.push(info), body()),
    };
    const twoTurns = definePipeline({ name: 'demo', setup: [step('prepare')], iteration: [step('think', (state) => (state.iteration === 2 ? breakLoop('ok') : undefined)), step('act')], finalize: [step('summarize')], maxIterations: 3 });
    const result = await runPipeline(twoTurns, { task: 't' }, { deps: { tracer } });
    expect(kept.map((info) => ({ ...info }))).toEqual([
      { runId: result.runId, name: 'prepare', zone: 'setup', iteration: 0 },
      { runId: result.runId, iteration: 1 },
      { runId: result.runId, name: 'think', zone: 'iteration', iteration: 1 },
      { runId: result.runId, name: 'act', zone: 'iteration', iteration: 1 },
      { runId: result.runId, iteration: 2 },
      { runId: result.runId, name: 'think', zone: 'iteration', iteration: 2 },
      { runId: result.runId, name: 'act', zone: 'iteration', iteration: 2 },
      { runId: result.runId, name: 'summarize', zone: 'finalize', iteration: 2 },
    ]);
    expect(new Set(kept).size).toBe(kept.length);
  });

  it('does not wrap anything when the tracer says at the start that it is disabled', async () => {
    const { tracer, wrapped } = countingTracer(() => false);
    const result = await runPipeline(pipeline, { task: 't' }, { deps: { tracer } });
    expect(result.status).toBe('completed');
    expect(trail(result.state)).toEqual(['think#1', 'summarize#1']);
    expect(wrapped).toEqual([]);
  });
});

describe('how the run ended, as finalize sees it', () => {
  it('the runner writes state.stop before finalize, and finalize cannot change the result', async () => {
    let seen: unknown;
    const meddler: Stage = {
      name: 'summarize',
      async execute(state) {
        seen = structuredClone(state.stop);
        state.stop = { status: 'completed', kind: 'completed', stage: null, message: 'rewritten' };
      },
    };
    const pipeline = definePipeline({ name: 'demo', iteration: [step('think', () => abortRun('token budget spent', 'budget_tokens'))], finalize: [meddler], maxIterations: 3 });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(seen).toEqual({ status: 'stopped', kind: 'budget_tokens', stage: 'think', message: 'token budget spent' });
    expect(result.status).toBe('stopped');
    expect(result.stopReason.message).toBe('token budget spent');
  });
});
