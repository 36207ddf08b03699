import { describe, expect, it } from 'vitest';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunPosition, RunSeam } from '../../src/engine/run-seam.js';
import { breakLoop } from '../../src/engine/signal.js';
import type { Stage } from '../../src/engine/stage.js';
import { createRunState } from '../../src/engine/state.js';

declare module '../../src/engine/state.js' {
  interface StageSlots {
    seamTrail: string[];
  }
}

const mark = (name: string, stopAt?: number): Stage => ({
  name,
  execute(state) {
    (state.seamTrail ??= []).push(`${name}@${state.iteration}`);
    if (stopAt !== undefined && state.iteration === stopAt) return breakLoop('done');
  },
});

const pipeline = definePipeline({
  name: 'demo',
  setup: [mark('prepare')],
  iteration: [mark('think', 2), mark('act')],
  finalize: [mark('summarize')],
  maxIterations: 5,
});

describe('the durability seam', () => {
  it('is told where the run stands after every stage and on entering finalize', async () => {
    const seen: Array<[string | null, string, number, number, boolean]> = [];
    const seam: RunSeam = {
      boundary: (_state, position, stage) =>
        void seen.push([stage, position.zone, position.iteration, position.nextStage, position.breakRequested]),
    };
    const result = await runPipeline(pipeline, { task: 't' }, { seam });
    expect(result.status).toBe('completed');
    expect(seen).toEqual([
      ['prepare', 'setup', 0, 1, false],
      ['think', 'iteration', 1, 1, false],
      ['act', 'iteration', 1, 2, false],
      ['think', 'iteration', 2, 1, true],
      ['act', 'iteration', 2, 2, true],
      [null, 'finalize', 2, 0, true],
      ['summarize', 'finalize', 2, 1, true],
    ]);
  });

  it('a boundary that fails ends the run failed with kind store; finalize still runs', async () => {
    let calls = 0;
    const seam: RunSeam = {
      async boundary(_state, _position, stage) {
        calls += 1;
        if (stage === 'think') throw new Error('disk full');
      },
    };
    const result = await runPipeline(pipeline, { task: 't' }, { seam });
    expect(result).toMatchObject({
      status: 'failed',
      partial: true,
      stopReason: { kind: 'store', stage: 'think', message: 'the run could not be recorded: disk full' },
    });
    expect(result.state.seamTrail).toEqual(['prepare@0', 'think@1', 'summarize@1']);
    expect(calls).toBeGreaterThanOrEqual(3);
  });

  it('wraps the ports once, with a cursor that reads where the run is', async () => {
    const where: string[] = [];
    const seam: RunSeam = {
      wrapDeps: (deps, cursor) => ({
        ...deps,
        clock: { now: () => (where.push(`${cursor.zone}:${cursor.stage}`), deps.clock.now()) },
      }),
      boundary: () => undefined,
    };
    const timed: Stage = { name: 'think', execute: (_state, ctx) => (ctx.deps.clock.now(), breakLoop('done')) };
    await runPipeline(definePipeline({ name: 'demo', iteration: [timed], maxIterations: 2 }), { task: 't' }, { seam });
    expect(where).toEqual(['iteration:think']);
  });

  it('a run started from a position continues exactly there', async () => {
    const state = createRunState('run-1', 'demo', { task: 't' });
    state.iteration = 1;
    state.seamTrail = ['prepare@0', 'think@1'];
    const position: RunPosition = {
      zone: 'iteration',
      iteration: 1,
      nextStage: 1,
      steer: null,
      breakRequested: false,
      ended: null,
    };
    const result = await runPipeline(pipeline, { task: 't' }, { start: { state, position } });
    expect(result.runId).toBe('run-1');
    expect(result.state.seamTrail).toEqual(['prepare@0', 'think@1', 'act@1', 'think@2', 'act@2', 'summarize@2']);
    expect(result.stages.find((stage) => stage.name === 'prepare')?.calls).toBe(0);
  });

  it('a run started in finalize runs only the rest of finalize, keeping the recorded ending', async () => {
    const state = createRunState('run-2', 'demo', { task: 't' });
    state.iteration = 3;
    state.stop = { status: 'stopped', kind: 'budget_tokens', stage: 'budget', message: 'tokens spent' };
    const ended = { ...state.stop };
    const position: RunPosition = {
      zone: 'finalize',
      iteration: 3,
      nextStage: 0,
      steer: null,
      breakRequested: false,
      ended,
    };
    let seen = -1;
    const seeing = definePipeline({
      ...pipeline,
      finalize: [
        {
          name: 'summarize',
          execute: (inner, ctx) => {
            seen = ctx.iteration;
            (inner.seamTrail ??= []).push(`summarize@${inner.iteration}`);
          },
        },
      ],
    });
    const result = await runPipeline(seeing, { task: 't' }, { start: { state, position } });
    expect(seen).toBe(3);
    expect(result.state.seamTrail).toEqual(['summarize@3']);
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'budget_tokens', stage: 'budget' } });
  });
});
