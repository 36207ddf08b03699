// Fault matrix, stages: a stage that throws in each zone, hangs, ignores its signal or returns a non-signal, and a
// tracer that throws; apart from run-faults.test.ts (tools, cancellation) to keep each file short.
import { describe, it } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import type { Pipeline } from '../../src/engine/pipeline.js';
import type { RunOptions } from '../../src/engine/runner.js';
import type { RunTracer, Stage } from '../../src/engine/stage.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { testCalculator } from '../support/stage-tools.js';
import { runCase, withStage, type Expected } from './harness.js';
import { answering, hostile, revoked } from './run-faults-fixtures.js';

const throwing = (value: () => unknown): Stage => ({
  name: 'faulty',
  execute: () => {
    throw value();
  },
});
const hanging = (honour: boolean): Stage => ({
  name: 'faulty',
  execute: (_state, ctx) =>
    new Promise<void>((resolve) => {
      if (honour) ctx.signal!.addEventListener('abort', () => resolve());
    }),
});

interface StageRow {
  name: string;
  pipeline: () => Pipeline;
  options?: () => RunOptions;
  expected: Expected;
}

const inZone = (zone: 'setup' | 'iteration' | 'finalize', stage: Stage) => () =>
  withStage(reactPipeline(), zone, stage);
const stageRows: StageRow[] = [
  {
    name: 'throws an Error in setup',
    pipeline: inZone(
      'setup',
      throwing(() => new Error('setup broke')),
    ),
    expected: { status: 'failed', kind: 'error', stage: 'faulty', message: /setup broke/, boundMs: 2_000 },
  },
  {
    name: 'throws an Error in the iteration zone',
    pipeline: () =>
      withStage(
        reactPipeline(),
        'iteration',
        throwing(() => new Error('loop broke')),
      ),
    expected: { status: 'failed', kind: 'error', stage: 'faulty', message: /loop broke/, boundMs: 2_000 },
  },
  {
    name: 'throws in finalize: a warning, the status kept',
    pipeline: inZone(
      'finalize',
      throwing(() => new Error('finalize broke')),
    ),
    expected: { status: 'completed', kind: 'completed', answer: /395/, boundMs: 2_000 },
  },
  {
    name: 'throws an object whose toString and toJSON throw',
    pipeline: inZone('setup', throwing(hostile)),
    expected: { status: 'failed', kind: 'error', stage: 'faulty', boundMs: 2_000 },
  },
  {
    name: 'throws a revoked Proxy',
    pipeline: inZone('setup', throwing(revoked)),
    expected: { status: 'failed', kind: 'error', stage: 'faulty', boundMs: 2_000 },
  },
  {
    name: 'throws a BigInt holder',
    pipeline: inZone(
      'setup',
      throwing(() => ({ amount: 10n })),
    ),
    expected: { status: 'failed', kind: 'error', stage: 'faulty', boundMs: 2_000 },
  },
  {
    name: 'throws undefined',
    pipeline: inZone(
      'setup',
      throwing(() => undefined),
    ),
    expected: { status: 'failed', kind: 'error', stage: 'faulty', boundMs: 2_000 },
  },
  {
    name: 'returns a non-signal',
    pipeline: inZone('setup', { name: 'faulty', execute: () => ({ type: 'stop' }) as never }),
    expected: { status: 'failed', kind: 'error', stage: 'faulty', message: /not a signal/, boundMs: 2_000 },
  },
  {
    name: 'returns a promise of a non-signal',
    pipeline: inZone('setup', { name: 'faulty', execute: async () => 42 as never }),
    expected: { status: 'failed', kind: 'error', stage: 'faulty', message: /not a signal/, boundMs: 2_000 },
  },
  {
    name: 'hangs, honouring its signal, until a deadline',
    pipeline: inZone('setup', {
      ...hanging(true),
      execute: (state, ctx) => (
        ctx.setDeadline(Date.now() + 150, 'probe deadline', 'probe_deadline'),
        hanging(true).execute(state, ctx)
      ),
    }),
    expected: { status: 'stopped', kind: 'probe_deadline', boundMs: 2_000 },
  },
  {
    name: 'ignores its signal after a cancel: left behind within 1 s and named',
    pipeline: inZone('setup', hanging(false)),
    options: () => ({ signal: AbortSignal.timeout(100) }),
    expected: { status: 'cancelled', kind: 'cancelled', stage: 'faulty', message: /did not stop/, boundMs: 1_200 },
  },
  {
    name: 'ignores its signal past a deadline: left behind within 1 s and named',
    pipeline: inZone('setup', {
      name: 'faulty',
      execute: (_state, ctx) => (
        ctx.setDeadline(Date.now() + 100, 'probe deadline', 'probe_deadline'),
        new Promise<void>(() => {})
      ),
    }),
    expected: { status: 'stopped', kind: 'probe_deadline', stage: 'faulty', message: /did not stop/, boundMs: 1_200 },
  },
  {
    name: 'hangs in finalize: cut at the finalize limit',
    pipeline: inZone('finalize', hanging(false)),
    options: () => ({ finalizeTimeoutMs: 200 }),
    expected: { status: 'completed', kind: 'completed', answer: /395/, boundMs: 1_500 },
  },
  {
    name: 'aborts the run from setup',
    pipeline: inZone('setup', {
      name: 'faulty',
      execute: () => ({ type: 'abort_run', reason: 'nope', kind: 'probe_stop' }),
    }),
    expected: { status: 'stopped', kind: 'probe_stop', stage: 'faulty', boundMs: 2_000 },
  },
];

describe('fault matrix: stages', () => {
  it.each(stageRows.map((row) => [row.name, row] as const))('a stage that %s', async (_name, row) => {
    const options = row.options?.() ?? {};
    await runCase(
      row.pipeline(),
      'What is 17 * 23 + 4?',
      { ...options, deps: { model: answering(), tools: new ToolRegistry([testCalculator]), ...options.deps } },
      row.expected,
    );
  });

  const bomb = () => {
    throw new Error('tracer bomb');
  };
  const tracers: Array<[string, RunTracer]> = [
    ['run() throws', { run: bomb, iteration: (_info, body) => body(), stage: (_info, body) => body() }],
    ['stage() throws', { run: (_info, body) => body(), iteration: (_info, body) => body(), stage: bomb }],
    ['iteration() throws', { run: (_info, body) => body(), iteration: bomb, stage: (_info, body) => body() }],
    [
      'enabled() throws',
      {
        enabled: bomb,
        run: (_info, body) => body(),
        iteration: (_info, body) => body(),
        stage: (_info, body) => body(),
      },
    ],
  ];
  it.each(tracers)('a tracer whose %s never changes the outcome', async (_name, tracer) => {
    await runCase(
      reactPipeline(),
      'What is 17 * 23 + 4?',
      { deps: { model: answering(), tracer } },
      { status: 'completed', kind: 'completed', answer: /^395$/, boundMs: 2_000 },
    );
  });
});
