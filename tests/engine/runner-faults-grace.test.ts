// The runner against stages that ignore their signal, finalize stages left behind, and the partial flag; apart from
// runner-faults.test.ts (what is thrown, tracers that throw) to keep each file short.
import { describe, expect, it } from 'vitest';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { breakLoop } from '../../src/engine/signal.js';
import type { Stage } from '../../src/engine/stage.js';
import { PROMPTLY_MS } from '../support/helpers.js';
import { finalizeOnce } from './runner-faults-fixtures.js';

describe('a stage that ignores its signal cannot hold the run', () => {
  const deaf: Stage = { name: 'deaf', execute: () => new Promise(() => {}) };

  it('on cancel, the runner stops waiting after the grace and names the stage', async () => {
    const controller = new AbortController();
    // Cancelled once the stage runs (in a task of its own, so the runner is waiting on the stage by then).
    const deafStarted: Stage = {
      name: 'deaf',
      execute: () => (setImmediate(() => controller.abort(new Error('user pressed Ctrl-C'))), new Promise(() => {})),
    };
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [deafStarted],
      finalize: [finalizeOnce],
      maxIterations: 3,
    });
    const started = performance.now();
    const result = await runPipeline(pipeline, { task: 't' }, { signal: controller.signal, abandonAfterMs: 100 });
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(result.status).toBe('cancelled');
    expect(result.stopReason.stage).toBe('deaf');
    expect(result.stopReason.message).toContain('user pressed Ctrl-C');
    expect(result.stopReason.message).toContain('stage "deaf" did not stop within 100 ms');
    expect(result.warnings.map((warning) => warning.stage)).toEqual(['deaf']);
    expect(result.state.finalized).toBe(1);
  });

  it('on a deadline, the run ends stopped with the deadline kind, after the default grace', async () => {
    const setsDeadline: Stage = {
      name: 'budget',
      execute: (_state, ctx) => ctx.setDeadline(ctx.deps.clock.now() + 20, 'time is up', 'budget_time'),
    };
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [setsDeadline, deaf],
      finalize: [finalizeOnce],
      maxIterations: 3,
    });
    const started = performance.now();
    const result = await runPipeline(pipeline, { task: 't' });
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
    expect(result).toMatchObject({
      status: 'stopped',
      partial: true,
      stopReason: { kind: 'budget_time', stage: 'deaf' },
    });
  });

  it('a stage that does stop within the grace is waited for, and its own outcome counts', async () => {
    const controller = new AbortController();
    const listens: Stage = {
      name: 'listens',
      execute: (state, ctx) =>
        new Promise((resolve) => {
          ctx.signal!.addEventListener('abort', () => {
            state.answer = 'partial';
            resolve();
          });
          setImmediate(() => controller.abort());
        }),
    };
    const pipeline = definePipeline({ name: 'demo', iteration: [listens], maxIterations: 3 });
    const result = await runPipeline(pipeline, { task: 't' }, { signal: controller.signal });
    expect(result.warnings).toEqual([]);
    expect(result).toMatchObject({
      status: 'cancelled',
      answer: 'partial',
      stopReason: { stage: 'listens', message: 'the run was cancelled by its caller' },
    });
  });
});

describe('nothing writes to a result after runPipeline resolved', () => {
  it('a finalize stage left behind by the limit cannot change the resolved result or its state', async () => {
    let wrote: () => void = () => {};
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const late: Stage = {
      name: 'late',
      execute: (state) =>
        new Promise((resolve) =>
          setTimeout(() => {
            state.answer = 'too late';
            resolve();
            wrote();
          }, 300),
        ),
    };
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [{ name: 'think', execute: () => breakLoop('ok') }],
      finalize: [late],
      maxIterations: 3,
    });
    const result = await runPipeline(pipeline, { task: 't' }, { finalizeTimeoutMs: 20 });
    expect(result.answer).toBeNull();
    await written;
    expect(result.answer).toBeNull();
    expect(result.state.answer).toBeUndefined();
  });

  it('a finalize stage that writes its fallback as soon as it sees the abort is given the grace to do so', async () => {
    const fallback: Stage = {
      name: 'summarize',
      execute: (state, ctx) =>
        new Promise((resolve) =>
          ctx.signal!.addEventListener('abort', () =>
            setTimeout(() => {
              state.answer = 'fallback';
              resolve();
            }, 5),
          ),
        ),
    };
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [{ name: 'think', execute: () => breakLoop('ok') }],
      finalize: [fallback],
      maxIterations: 3,
    });
    const result = await runPipeline(pipeline, { task: 't' }, { finalizeTimeoutMs: 20 });
    expect(result.answer).toBe('fallback');
    expect(result.warnings).toEqual([]);
  });
});

describe('partial', () => {
  it('is true whenever the run did not complete, false for a completed run that did not say otherwise', async () => {
    const capped = await runPipeline(
      definePipeline({ name: 'demo', iteration: [{ name: 'think', execute: () => undefined }], maxIterations: 2 }),
      { task: 't' },
    );
    expect(capped).toMatchObject({ status: 'stopped', partial: true, stopReason: { kind: 'max_iterations' } });
    const completed = await runPipeline(
      definePipeline({
        name: 'demo',
        iteration: [{ name: 'think', execute: () => breakLoop('ok') }],
        maxIterations: 2,
      }),
      { task: 't' },
    );
    expect(completed.partial).toBe(false);
  });
});
