// The SQLite adapter: the shared contract, plus what only a file can show (reopening, old stores, edited rows).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { sqliteSessions } from '../../src/sessions/sqlite-sessions.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { sessionStoreConformance } from './conformance.js';

const sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
const folder = mkdtempSync(join(tmpdir(), 'stageloop-sessions-'));
let files = 0;
const newFile = () => join(folder, `store-${++files}.db`);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

sessionStoreConformance('sqlite', () => sqliteSessions(newFile()));

const scope = { user: 'default', session: 's1' };

describe('sqliteSessions', () => {
  it('keeps turns and facts across a reopen, in the same file as the runs', async () => {
    const file = newFile();
    const first = sqliteSessions(file);
    await first.appendTurn(scope, { runId: 'r1', task: 'What is 12 * 12?', answer: '144', tools: [], at: 1 });
    await first.setFact(scope, { key: 'unit', value: 'cm', sourceRun: 'r1', updated: 1 });
    first.close();
    const runs = sqliteStore(file);
    expect(await runs.list()).toEqual([]);
    runs.close();
    const again = sqliteSessions(file);
    expect(await again.load(scope)).toMatchObject({
      turns: [{ seq: 1, answer: '144' }],
      facts: [{ key: 'unit', value: 'cm' }],
    });
    again.close();
  });

  it('a corrupted turn row is reported in one line and kept; the other turns load', async () => {
    const file = newFile();
    const store = sqliteSessions(file);
    for (const task of ['one', 'two', 'three'])
      await store.appendTurn(scope, { runId: task, task, answer: task, tools: [], at: 1 });
    const raw = new sqlite(file);
    raw.prepare("UPDATE session_turns SET tools = '{not json' WHERE seq = 2").run();
    raw.close();
    const loaded = await store.load(scope);
    expect(loaded.turns.map((turn) => turn.task)).toEqual(['one', 'three']);
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0]).toMatch(
      /^session "s1" of user "default" in store .+: turn 2: its tool account is not JSON .+; the row is kept as it is/,
    );
    expect(loaded.problems[0]).not.toContain('\n');
    store.close();
    const check = new sqlite(file);
    expect(check.prepare('SELECT tools FROM session_turns WHERE seq = 2').pluck().get()).toBe('{not json');
    check.close();
  });
});
