// The two SQLite drivers share one file format: a store written through better-sqlite3 (Node 20) reads and continues
// through node:sqlite (a Node 22 binary: $STAGELOOP_TEST_NODE22, which .ci/run sets, or node_modules/node22/bin/node),
// and the other way round, in one file.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshot, writeRun } from './driver-exchange.js';
import { whyNot } from './sqlite-fixtures.js';

const run = promisify(execFile);
const directory = mkdtempSync(join(tmpdir(), 'stageloop-drivers-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const node22 =
  process.env.STAGELOOP_TEST_NODE22 ?? fileURLToPath(new URL('../../node_modules/node22/bin/node', import.meta.url));
const exchange = fileURLToPath(new URL('./driver-exchange.ts', import.meta.url));
const here =
  whyNot('better-sqlite3') ??
  (existsSync(node22) ? undefined : `no Node 22 binary at ${node22}: set STAGELOOP_TEST_NODE22 (.ci/run does)`);

describe('the SQLite drivers', () => {
  it.skipIf(here !== undefined)(
    `read and continue each other's store files (better-sqlite3 here, node:sqlite under Node 22)${here === undefined ? '' : `: ${here}`}`,
    async () => {
      const file = join(directory, 'shared.db');
      await writeRun(file, 'better-sqlite3', 'written-by-better-sqlite3');
      const { stdout, stderr } = await run(
        node22,
        ['--import', 'tsx', exchange, 'node:sqlite', file, 'written-by-node-sqlite'],
        {
          timeout: 120_000,
        },
      );
      // No "SQLite is an experimental feature" warning, and nothing else.
      expect(stderr).toBe('');
      const readThere = JSON.parse(stdout) as unknown;
      const readHere = await snapshot(file, 'better-sqlite3');
      expect(readHere).toEqual(readThere);
      expect(
        (readHere as Array<{ run: { runId: string; status: string } }>).map(({ run }) => [run.runId, run.status]),
      ).toEqual([
        ['written-by-node-sqlite', 'completed'],
        ['written-by-better-sqlite3', 'completed'],
      ]);
    },
    150_000,
  );
});
