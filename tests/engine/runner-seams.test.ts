// runPipeline seen from outside: its events, one pipeline serving many runs at once, a JSON-only state, run ids and
// the tracer seam.
import { describe, expect, it } from 'vitest';
import { definePipeline, insertAfter, stageNames } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { breakLoop } from '../../src/engine/signal.js';
import type { RunEvent, RunTracer, Stage, StageContext } from '../../src/engine/stage.js';
import { step, trail } from './runner-steps.js';

describe('events', () => {
  it('reports run, stage and custom events to deps.onEvent', async () => {
    const events: RunEvent[] = [];
    const noisy: Stage = {
      name: 'think',
      async execute(_state, ctx) {
        ctx.emit('thought', { words: 3 });
        return breakLoop('done');
      },
    };
    await runPipeline(
      definePipeline({ name: 'demo', iteration: [noisy], maxIterations: 2 }),
      { task: 't' },
      { deps: { onEvent: (event) => events.push(event) } },
    );
    expect(events.map((event) => `${event.type}:${event.stage ?? '-'}`)).toEqual([
      'run_started:-',
      'stage_started:think',
      'thought:think',
      'stage_finished:think',
      'run_finished:-',
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
        emit('loose', { aborted: signal!.aborted });
        const copy = { ...ctx };
        spreadKeys = Object.keys(copy);
        spreadSignal = copy.signal;
        return breakLoop('done');
      },
    };
    await runPipeline(
      definePipeline({ name: 'demo', iteration: [loose], maxIterations: 2 }),
      { task: 't' },
      { signal: new AbortController().signal, deps: { onEvent: (event) => events.push(event) } },
    );
    expect(events.find((event) => event.type === 'loose')?.data).toEqual({ aborted: false });
    expect(spreadKeys).toEqual(
      expect.arrayContaining(['signal', 'deps', 'zone', 'iteration', 'stage', 'emit', 'setDeadline']),
    );
    expect(spreadSignal).toBeInstanceOf(AbortSignal);
  });

  it('ctx.emit calls a data function only when someone listens; plain data works as well', async () => {
    let built = 0;
    const probe: Stage = {
      name: 'think',
      execute(_state, ctx) {
        ctx.emit('thought', () => ({ words: ++built }));
        ctx.emit('thought', { words: 10 });
        return breakLoop('done');
      },
    };
    const pipeline = definePipeline({ name: 'demo', iteration: [probe], maxIterations: 2 });
    await runPipeline(pipeline, { task: 't' });
    expect(built).toBe(0);
    const events: RunEvent[] = [];
    await runPipeline(pipeline, { task: 't' }, { deps: { onEvent: (event) => events.push(event) } });
    expect(built).toBe(1);
    expect(events.flatMap((event) => (event.type === 'thought' ? [event.data.words] : []))).toEqual([1, 10]);
  });

  it('the stage contract stays small: a stage is given seven members', async () => {
    // A type-level count: adding an eighth member to StageContext fails to compile here.
    const members: Record<keyof StageContext, true> = {
      signal: true,
      deps: true,
      zone: true,
      iteration: true,
      stage: true,
      emit: true,
      setDeadline: true,
    };
    let given: string[] = [];
    const probe: Stage = { name: 'think', execute: (_state, ctx) => void (given = Object.keys(ctx)) };
    await runPipeline(definePipeline({ name: 'demo', iteration: [probe], maxIterations: 1 }), { task: 't' });
    expect(Object.keys(members)).toHaveLength(7);
    expect(given.sort()).toEqual(Object.keys(members).sort());
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
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, index) => runPipeline(pipeline, { task: String(index % 7) })),
    );
    for (const [index, result] of results.entries()) {
      const start = index % 7;
      expect(result.status).toBe('completed');
      expect(result.answer).toBe(`${result.runId} counted ${start}`);
      expect(trail(result.state)).toEqual(
        Array.from({ length: start + 1 }, (_, step) => `${result.runId}:${start - step}`),
      );
    }
    expect(new Set(results.map((result) => result.runId)).size).toBe(200);
  });
});

describe('JSON-only state', () => {
  it('the state survives a JSON round trip at every stage boundary', async () => {
    let pipeline = definePipeline({
      name: 'demo',
      setup: [step('context')],
      iteration: [
        step('think', (state) => {
          state.answer = 'x';
          return state.iteration === 2 ? breakLoop('done') : undefined;
        }),
      ],
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
    const pipeline = definePipeline({
      name: 'ids',
      iteration: [step('stop', () => breakLoop('ok'))],
      maxIterations: 1,
    });
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
  const pipeline = definePipeline({
    name: 'demo',
    iteration: [step('think', () => breakLoop('ok'))],
    finalize: [step('summarize')],
    maxIterations: 3,
  });

  it('wraps the run, each iteration and each stage when the tracer is enabled or does not say', async () => {
    for (const enabled of [
      undefined,
      () => true,
      () => {
        throw new Error('broken check');
      },
    ]) {
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
    const twoTurns = definePipeline({
      name: 'demo',
      setup: [step('prepare')],
      iteration: [step('think', (state) => (state.iteration === 2 ? breakLoop('ok') : undefined)), step('act')],
      finalize: [step('summarize')],
      maxIterations: 3,
    });
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
