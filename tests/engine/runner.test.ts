// runPipeline's zones: setup once, the iteration in order until a signal or the cap, finalize once whatever happened;
// what a stage may return and throw; how the run ended, as finalize sees it.
import { describe, expect, it } from 'vitest';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { abortRun, breakLoop, type Signal } from '../../src/engine/signal.js';
import type { Stage } from '../../src/engine/stage.js';
import { step, trail } from './runner-steps.js';

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
      ['setup', 'one', 1],
      ['setup', 'two', 1],
      ['iteration', 'think', 2],
      ['iteration', 'act', 2],
      ['finalize', 'summarize', 1],
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
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [step('think')],
      finalize: [step('summarize')],
      maxIterations: 3,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(trail(result.state)).toEqual(['think#1', 'think#2', 'think#3', 'summarize#3']);
    expect(result.status).toBe('stopped');
    expect(result.stopReason).toEqual({
      kind: 'max_iterations',
      stage: null,
      message: 'reached the iteration cap of 3',
    });
    expect(result.iterations).toBe(3);
  });

  it('a thrown error fails the run naming stage and iteration, keeps partial state, finalize runs', async () => {
    const boom = new Error('disk on fire');
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [
        step('think'),
        step('act', (state) => {
          if (state.iteration === 2) throw boom;
        }),
      ],
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
      finalize: [
        step('first', () => {
          throw new Error('cleanup failed');
        }),
        step('second', () => abortRun('ignored')),
        step('third'),
      ],
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
      iteration: [
        step('think', () => breakLoop('answer ready')),
        step('guard', () => abortRun('too late', 'budget_tokens')),
      ],
      finalize: [],
      maxIterations: 5,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(result.stopReason).toEqual({ kind: 'completed', stage: 'think', message: 'answer ready' });
    expect(result.status).toBe('completed');
  });

  it('a stage returning something that is not a signal fails clearly', async () => {
    const bad: Stage = { name: 'bad', execute: async () => 'oops' as unknown as Signal };
    const result = await runPipeline(definePipeline({ name: 'demo', iteration: [bad], maxIterations: 2 }), {
      task: 't',
    });
    expect(result.status).toBe('failed');
    expect(result.stopReason.message).toMatch(/returned something that is not a signal/);
  });

  it('a stage that throws something other than an Error still gets a readable message', async () => {
    const odd: Stage = { name: 'think', execute: () => Promise.reject({ code: 'E42', detail: 'quota' }) };
    const result = await runPipeline(definePipeline({ name: 'demo', iteration: [odd], maxIterations: 5 }), {
      task: 't',
    });
    expect(result.error?.message).toBe('{"code":"E42","detail":"quota"}');
    expect(result.stopReason.message).toBe('stage "think" failed: {"code":"E42","detail":"quota"}');
  });

  it('a stage whose execute throws synchronously fails the run like one that rejects', async () => {
    const sync: Stage = {
      name: 'think',
      execute: () => {
        throw new Error('not even async');
      },
    };
    const result = await runPipeline(
      definePipeline({ name: 'demo', iteration: [sync], finalize: [step('summarize')], maxIterations: 5 }),
      { task: 't' },
    );
    expect(result).toMatchObject({
      status: 'failed',
      stopReason: { kind: 'error', stage: 'think' },
      error: { stage: 'think', message: 'not even async' },
    });
    expect(trail(result.state)).toEqual(['summarize#1']);
  });

  it('a stage may return without a promise: its signal steers the run like an awaited one', async () => {
    let turns = 0;
    const counter: Stage = {
      name: 'count',
      execute: () => (++turns === 3 ? breakLoop('three turns', 'done_counting') : undefined),
    };
    const sync: Stage = {
      name: 'after',
      execute: (state) => void (state.trail ??= []).push(`after#${state.iteration}`),
    };
    const finish: Stage = { name: 'finish', execute: () => abortRun('finalize steers are ignored') };
    const pipeline = definePipeline({
      name: 'sync',
      iteration: [counter, sync],
      finalize: [finish],
      maxIterations: 10,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(result.status).toBe('completed');
    expect(result.stopReason).toEqual({ kind: 'done_counting', stage: 'count', message: 'three turns' });
    expect(trail(result.state)).toEqual(['after#1', 'after#2', 'after#3']);
    expect(result.stages.find((stats) => stats.name === 'finish')?.calls).toBe(1);

    const stop: Stage = { name: 'stop', execute: () => abortRun('no more', 'guard_said_so') };
    const stopped = await runPipeline(
      definePipeline({ name: 'sync-abort', iteration: [stop, sync], maxIterations: 10 }),
      { task: 't' },
    );
    expect(stopped.status).toBe('stopped');
    expect(stopped.stopReason).toEqual({ kind: 'guard_said_so', stage: 'stop', message: 'no more' });
    expect(trail(stopped.state)).toEqual([]);
  });

  it('a thenable that is not a native promise is awaited', async () => {
    const thenable: Stage = {
      name: 'thenable',
      execute: () =>
        ({
          then: (resolve: (signal: Signal) => void) => setTimeout(() => resolve(breakLoop('late answer')), 5),
        }) as unknown as Promise<Signal>,
    };
    const result = await runPipeline(definePipeline({ name: 'thenable', iteration: [thenable], maxIterations: 5 }), {
      task: 't',
    });
    expect(result.stopReason).toEqual({ kind: 'completed', stage: 'thenable', message: 'late answer' });
  });

  it('rejects only invalid arguments', async () => {
    await expect(runPipeline({ name: 'x' } as never, { task: 't' })).rejects.toThrow(/made by definePipeline/);
    const pipeline = definePipeline({ name: 'demo', iteration: [step('think')], maxIterations: 1 });
    await expect(runPipeline(pipeline, {} as never)).rejects.toThrow(/input must be an object like \{ task/);
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
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [step('think', () => abortRun('token budget spent', 'budget_tokens'))],
      finalize: [meddler],
      maxIterations: 3,
    });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(seen).toEqual({ status: 'stopped', kind: 'budget_tokens', stage: 'think', message: 'token budget spent' });
    expect(result.status).toBe('stopped');
    expect(result.stopReason.message).toBe('token budget spent');
  });
});
