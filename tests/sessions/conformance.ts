// The SessionStore contract, run against every adapter (memory and SQLite).
import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/sessions/types.js';

const alice = { user: 'alice', session: 's1' };
const bob = { user: 'bob', session: 's1' };
const turn = (task: string, answer: string, at = 1) => ({
  runId: `run-${task}`,
  task,
  answer,
  tools: [`calculator(${task}) → ${answer}`],
  at,
});

export function sessionStoreConformance(name: string, open: () => SessionStore): void {
  describe(`SessionStore conformance: ${name}`, () => {
    it('a new session exists only once something is kept in it, and loads empty before', async () => {
      const store = open();
      expect(await store.exists(alice)).toBe(false);
      expect(await store.load(alice)).toEqual({ summary: '', turns: [], facts: [], problems: [] });
      await store.appendTurn(alice, turn('1+1', '2'));
      expect(await store.exists(alice)).toBe(true);
      store.close();
    });

    it('appends turns in order with seqs 1, 2, 3 and keeps their tool accounts', async () => {
      const store = open();
      const first = await store.appendTurn(alice, turn('1+1', '2', 10));
      const second = await store.appendTurn(alice, turn('2+2', '4', 20));
      expect([first.seq, second.seq]).toEqual([1, 2]);
      const loaded = await store.load(alice);
      expect(
        loaded.turns.map((entry) => [entry.seq, entry.task, entry.answer, entry.tools, entry.at, entry.runId]),
      ).toEqual([
        [1, '1+1', '2', ['calculator(1+1) → 2'], 10, 'run-1+1'],
        [2, '2+2', '4', ['calculator(2+2) → 4'], 20, 'run-2+2'],
      ]);
      store.close();
    });

    it('keeps how a turn ended: a cancelled or failed turn with its status and partial answer, a completed one without a status', async () => {
      const store = open();
      const cancelled = await store.appendTurn(alice, { ...turn('3+3', ''), status: 'cancelled' });
      const failed = await store.appendTurn(alice, { ...turn('4+4', 'partly'), status: 'failed' });
      await store.appendTurn(alice, turn('5+5', '10'));
      expect([cancelled.status, failed.status]).toEqual(['cancelled', 'failed']);
      const loaded = await store.load(alice);
      expect(loaded.turns.map((entry) => [entry.task, entry.answer, entry.status])).toEqual([
        ['3+3', '', 'cancelled'],
        ['4+4', 'partly', 'failed'],
        ['5+5', '10', undefined],
      ]);
      expect('status' in loaded.turns[2]!).toBe(false);
      store.close();
    });

    it('keeps one turn per run: a resumed turn replaces the one its run left, in its place', async () => {
      const store = open();
      await store.appendTurn(alice, { ...turn('3+3', ''), runId: 'resumed', status: 'cancelled' });
      await store.appendTurn(alice, { ...turn('4+4', '8'), runId: 'other' });
      const again = await store.appendTurn(alice, { ...turn('3+3', '6'), runId: 'resumed' });
      expect(again.seq).toBe(1);
      const loaded = await store.load(alice);
      expect(loaded.turns.map((entry) => [entry.seq, entry.runId, entry.answer, entry.status])).toEqual([
        [1, 'resumed', '6', undefined],
        [2, 'other', '8', undefined],
      ]);
      store.close();
    });

    it('sets, updates, lists (by key) and deletes facts with their source run and time', async () => {
      const store = open();
      await store.setFact(alice, { key: 'unit', value: 'metres', sourceRun: 'r1', updated: 1 });
      await store.setFact(alice, { key: 'city', value: 'Lisbon', sourceRun: 'r1', updated: 2 });
      await store.setFact(alice, { key: 'unit', value: 'feet', sourceRun: 'r2', updated: 3 });
      expect(await store.listFacts(alice)).toEqual([
        { key: 'city', value: 'Lisbon', sourceRun: 'r1', updated: 2 },
        { key: 'unit', value: 'feet', sourceRun: 'r2', updated: 3 },
      ]);
      expect(await store.deleteFact(alice, 'unit')).toBe(true);
      expect(await store.deleteFact(alice, 'unit')).toBe(false);
      expect((await store.load(alice)).facts.map((fact) => fact.key)).toEqual(['city']);
      store.close();
    });

    it('two users with the same session name never see each other’s turns or facts', async () => {
      const store = open();
      await store.appendTurn(alice, turn('1+1', '2'));
      await store.setFact(alice, { key: 'secret', value: 'alice only', sourceRun: 'r1', updated: 1 });
      await store.appendTurn(bob, turn('3+3', '6'));
      expect((await store.load(bob)).turns.map((entry) => entry.task)).toEqual(['3+3']);
      expect(await store.listFacts(bob)).toEqual([]);
      expect(await store.deleteFact(bob, 'secret')).toBe(false);
      expect((await store.listFacts(alice)).map((fact) => fact.value)).toEqual(['alice only']);
      store.close();
    });

    it('compaction folds exactly the given turns into the summary, and refuses (changing nothing) when one is gone', async () => {
      const store = open();
      for (const [task, answer] of [
        ['a', '1'],
        ['b', '2'],
        ['c', '3'],
      ] as const)
        await store.appendTurn(alice, turn(task, answer));
      await store.compact(alice, [1, 2], 'a gave 1, b gave 2');
      const loaded = await store.load(alice);
      expect(loaded.summary).toBe('a gave 1, b gave 2');
      expect(loaded.turns.map((entry) => entry.seq)).toEqual([3]);
      await expect(store.compact(alice, [2, 3], 'again')).rejects.toThrow(
        /turns 2 are no longer there to fold; nothing was changed/,
      );
      expect(await store.load(alice)).toMatchObject({ summary: 'a gave 1, b gave 2', turns: [{ seq: 3 }] });
      // A turn after compaction continues the numbering.
      expect((await store.appendTurn(alice, turn('d', '4'))).seq).toBe(4);
      store.close();
    });

    it('observe-plan-act "Context & Token Budget", "caps cost per session": the session keeps what its turns spent, a resumed turn once, folded turns too', async () => {
      const store = open();
      expect((await store.load(alice)).spent).toBeUndefined();
      await store.appendTurn(alice, { ...turn('a', '1'), usage: { tokens: 100, costUsd: 0.25 } });
      await store.appendTurn(alice, {
        ...turn('b', ''),
        runId: 'resumed',
        status: 'cancelled',
        usage: { tokens: 40, costUsd: 0.5 },
      });
      // The resumed turn replaces its earlier record: what its run spent in all is counted once.
      await store.appendTurn(alice, { ...turn('b', '2'), runId: 'resumed', usage: { tokens: 70, costUsd: 1 } });
      await store.appendTurn(alice, { ...turn('c', '3'), usage: { tokens: 0, costUsd: 0 } });
      const loaded = await store.load(alice);
      expect(loaded.turns.map((entry) => entry.usage)).toEqual([
        { tokens: 100, costUsd: 0.25 },
        { tokens: 70, costUsd: 1 },
        undefined,
      ]);
      expect(loaded.spent).toEqual({ tokens: 170, costUsd: 1.25 });
      await store.compact(alice, [1, 2], 'a gave 1, b gave 2');
      expect((await store.load(alice)).spent).toEqual({ tokens: 170, costUsd: 1.25 });
      await store.appendTurn(alice, { ...turn('d', '4'), usage: { tokens: 5, costUsd: 0 } });
      await store.compact(alice, [3, 4], 'and more');
      expect((await store.load(alice)).spent).toEqual({ tokens: 175, costUsd: 1.25 });
      expect((await store.load(bob)).spent).toBeUndefined();
      store.close();
    });

    it('rejects a session or user name with path characters, and a fact key that is not a name', async () => {
      const store = open();
      await expect(store.load({ user: 'alice', session: '../etc' })).rejects.toThrow(
        'session name "../etc" has path characters',
      );
      await expect(store.appendTurn({ user: 'a/b', session: 's1' }, turn('x', 'y'))).rejects.toThrow(
        'user name "a/b" has path characters',
      );
      await expect(store.setFact(alice, { key: '', value: 'v', sourceRun: 'r', updated: 1 })).rejects.toThrow(
        /fact key "" is not usable/,
      );
      store.close();
    });
  });
}
