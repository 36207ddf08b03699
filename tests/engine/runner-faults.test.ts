import { describe, expect, it } from 'vitest';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { breakLoop } from '../../src/engine/signal.js';
import type { RunTracer, Stage } from '../../src/engine/stage.js';
import { PROMPTLY_MS } from '../support/helpers.js';

declare module '../../src/engine/state.js' {
  interface StageSlots {
    finalized: number;
  }
}

const finalizeOnce: Stage = {
  name: 'summarize',
  execute: (state) => void (state.finalized = (state.finalized ?? 0) + 1),
};
const throwing = (value: () => unknown): Stage => ({
  name: 'think',
  execute: () => {
    throw value();
  },
});

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

describe('anything thrown ends the run failed, with finalize run', () => {
  const hostile: Array<[string, () => unknown]> = [
    [
      'an object whose toString and toJSON throw',
      () => ({
        toString() {
          throw new Error('no');
        },
        toJSON() {
          throw new Error('no');
        },
      }),
    ],
    ['a revoked Proxy', revokedProxy],
    ['an object holding a BigInt', () => ({ size: 10n })],
    [
      'an Error whose message getter throws',
      () =>
        Object.defineProperty(new Error(), 'message', {
          get() {
            throw new Error('no');
          },
        }),
    ],
    ['null', () => null],
    ['a symbol', () => Symbol('odd')],
  ];
  for (const [label, value] of hostile) {
    it(label, async () => {
      const pipeline = definePipeline({
        name: 'demo',
        iteration: [throwing(value)],
        finalize: [finalizeOnce],
        maxIterations: 3,
      });
      const result = await runPipeline(pipeline, { task: 't' });
      expect(result.status).toBe('failed');
      expect(result.stopReason.kind).toBe('error');
      expect(result.stopReason.stage).toBe('think');
      expect(typeof result.stopReason.message).toBe('string');
      expect(result.state.finalized).toBe(1);
      expect(result.partial).toBe(true);
    });
  }

  it('a BigInt holder reads as JSON with the number kept', async () => {
    const pipeline = definePipeline({ name: 'demo', iteration: [throwing(() => ({ size: 10n }))], maxIterations: 3 });
    const result = await runPipeline(pipeline, { task: 't' });
    expect(result.stopReason.message).toBe('stage "think" failed: {"size":"10n"}');
  });
});

describe('a tracer that throws never changes the outcome', () => {
  const done: Stage = {
    name: 'think',
    execute: (state) => {
      state.answer = 'ok';
      return breakLoop('answered');
    },
  };
  const pipeline = definePipeline({ name: 'demo', iteration: [done], finalize: [finalizeOnce], maxIterations: 3 });
  const pass = <Result>(_info: unknown, body: () => Result) => body();
  const tracers: Array<[string, RunTracer]> = [
    [
      'run throws before the body',
      {
        run: () => {
          throw new Error('tracer');
        },
        iteration: pass,
        stage: pass,
      },
    ],
    [
      'run rejects after the body',
      {
        run: async (_info, body) => {
          await body();
          throw new Error('tracer');
        },
        iteration: pass,
        stage: pass,
      },
    ],
    [
      'iteration throws',
      {
        run: pass,
        iteration: () => {
          throw new Error('tracer');
        },
        stage: pass,
      },
    ],
    [
      'stage throws after the body',
      {
        run: pass,
        iteration: pass,
        stage: (_info, body) => {
          body();
          throw new Error('tracer');
        },
      },
    ],
    [
      'stage rejects instead of the body result',
      {
        run: pass,
        iteration: pass,
        stage: async (_info, body) => {
          await body();
          throw new Error('tracer');
        },
      },
    ],
    [
      'enabled() throws and stage never calls the body',
      {
        enabled: () => {
          throw new Error('tracer');
        },
        run: pass,
        iteration: pass,
        stage: () => undefined,
      },
    ],
  ];
  for (const [label, tracer] of tracers) {
    it(label, async () => {
      const result = await runPipeline(pipeline, { task: 't' }, { deps: { tracer } });
      expect(result.status).toBe('completed');
      expect(result.answer).toBe('ok');
      expect(result.stopReason).toEqual({ kind: 'completed', stage: 'think', message: 'answered' });
      expect(result.state.finalized).toBe(1);
    });
  }
});

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
