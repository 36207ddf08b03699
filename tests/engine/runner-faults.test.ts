import { describe, expect, it } from 'vitest';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { breakLoop } from '../../src/engine/signal.js';
import type { RunTracer, Stage } from '../../src/engine/stage.js';
import { finalizeOnce } from './runner-faults-fixtures.js';

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
