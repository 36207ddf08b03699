// `stageloop runs` on a real SQLite store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runsCommand } from '../../app/cli/runs-command.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import type { RunStore } from '../../src/store/types.js';
import { deadPid, header, liveOwner, outcome } from './conformance.js';

process.env.TZ = 'UTC';
const directory = mkdtempSync(join(tmpdir(), 'stageloop-runs-'));
const start = Date.parse('2026-12-01T09:00:00Z');
let store: RunStore;

beforeAll(async () => {
  store = sqliteStore(join(directory, 'stageloop.db'));
  const done = await store.create(
    header('run-done', { createdAt: start, input: { task: 'What is 17 * 23 + 4?' } }),
    liveOwner('a'),
    60_000,
  );
  await store.finish(done, outcome({ iterations: 2, tokens: 395 }));
  await store.create(
    header('run-dead', {
      createdAt: start + 60_000,
      pipeline: 'plan-execute-replan',
      input: { task: 'Plan\na  trip' },
    }),
    { ...liveOwner('b'), pid: deadPid() },
    3_600_000,
  );
  const live = await store.create(
    header('run-live', {
      createdAt: start + 120_000,
      input: { task: 'Summarise every chapter of the very long book in turn' },
    }),
    liveOwner('c'),
    3_600_000,
  );
  await store.append(live, [], { progress: { iterations: 4, tokens: 1_234 } });
});
afterAll(async () => {
  await store.close();
  rmSync(directory, { recursive: true, force: true });
});

async function runs(argv: string[], against = store) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const code = await runsCommand(argv, { stdout, stderr }, against);
  return { code, stdout: String(stdout.read() ?? ''), stderr: String(stderr.read() ?? '') };
}

describe('stageloop runs', () => {
  it('lists runs newest first with pipeline, status, start, iterations, tokens and the task shortened', async () => {
    const { code, stdout, stderr } = await runs([]);
    expect([code, stderr]).toEqual([0, '']);
    expect(stdout).toBe(
      [
        'RUN       PIPELINE             STATUS                STARTED              ITER  TOKENS  TASK',
        'run-live  react                running               2026-12-01 09:02:00  4     1234    Summarise every chapter of the very lon…',
        'run-dead  plan-execute-replan  running (owner gone)  2026-12-01 09:01:00  0     0       Plan a trip',
        'run-done  react                completed             2026-12-01 09:00:00  2     395     What is 17 * 23 + 4?',
        '',
      ].join('\n'),
    );
  });

  it('filters by status, limits, and prints one JSON array with --json', async () => {
    expect((await runs(['--status', 'completed'])).stdout).toMatch(/^RUN .*\nrun-done .*\n$/);
    expect((await runs(['--limit', '1'])).stdout.trim().split('\n')).toHaveLength(2);
    expect((await runs(['--status', 'failed'])).stdout).toBe('no failed runs in this store\n');
    const listed = JSON.parse((await runs(['--json', '--limit', '2'])).stdout) as unknown[];
    expect(listed).toEqual([
      {
        runId: 'run-live',
        pipeline: 'react',
        status: 'running',
        recoveredBy: null,
        held: true,
        task: 'Summarise every chapter of the very long book in turn',
        startedAt: '2026-12-01T09:02:00.000Z',
        updatedAt: expect.any(String),
        iterations: 4,
        tokens: 1_234,
        answer: null,
        stopReason: null,
      },
      {
        runId: 'run-dead',
        pipeline: 'plan-execute-replan',
        status: 'running',
        recoveredBy: null,
        held: false,
        task: 'Plan a trip',
        startedAt: '2026-12-01T09:01:00.000Z',
        updatedAt: expect.any(String),
        iterations: 0,
        tokens: 0,
        answer: null,
        stopReason: null,
      },
    ]);
    const [done] = JSON.parse((await runs(['--json', '--status', 'completed'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(done).toMatchObject({
      runId: 'run-done',
      answer: '42',
      stopReason: { kind: 'completed', stage: 'finish', message: 'done' },
    });
  });

  it('answers a bad flag with one line and exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [['--limit', '0'], 'stageloop: --limit must be a whole number >= 1, got "0"\n'],
      [['--limit', '-1'], 'stageloop: --limit got a value starting with "-": write it as --limit=VALUE\n'],
      [['--limit=-1'], 'stageloop: --limit must be a whole number >= 1, got "-1"\n'],
      [['--limit', 'ten'], 'stageloop: --limit must be a whole number >= 1, got "ten"\n'],
      [
        ['--status', 'done'],
        'stageloop: --status must be one of running, completed, stopped, failed, cancelled, interrupted, got "done"\n',
      ],
      [
        ['--colour'],
        `stageloop: --colour is not an option of this command: run "stageloop runs --help" for the options\n`,
      ],
      [['run-done'], 'stageloop runs takes no arguments, got "run-done": use "stageloop show RUN" for one run\n'],
    ];
    for (const [argv, message] of cases) expect(await runs(argv)).toEqual({ code: 2, stdout: '', stderr: message });
    expect((await runs(['--help'])).stdout).toMatch(/^Usage: stageloop runs \[--json\]/);
  });

  it('says so in one line, exit 1, when the store cannot be read', async () => {
    const closed = sqliteStore(join(directory, 'closed.db'));
    await closed.close();
    expect(await runs([], closed)).toEqual({
      code: 1,
      stdout: '',
      stderr: `stageloop: store ${join(directory, 'closed.db')} is closed: open the store again\n`,
    });
  });
});
