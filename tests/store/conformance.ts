// The one RunStore conformance suite (its leases half in conformance-leases.ts): every adapter runs both, one factory.
import { afterEach, describe, expect, it } from 'vitest';
import {
  RunExistsError,
  RunFinishedError,
  runNotFound,
  sequenceMismatch,
  type RunStore,
} from '../../src/store/types.js';
import type { StoreClock } from '../../src/store/run-store.js';
import { checkpoint, deadPid, entry, header, liveOwner, outcome } from './store-fixtures.js';

export { checkpoint, deadPid, entry, header, liveOwner, outcome } from './store-fixtures.js';

// The store's refusals without a class of their own, told apart by code and wording.
export const staleClaimRefusal = { code: 'conflict', message: expect.stringMatching(/refused$/) };
const sequenceRefusal = { code: 'store', message: expect.stringMatching(/expected seq/) };

export type StoreFactory = (clock: StoreClock) => RunStore | Promise<RunStore>;

/** Opens stores through `factory`; after each test closes them, then calls `reset` (the clock back to its start). */
export function storeOpener(factory: StoreFactory, clock: StoreClock, reset: () => void): () => Promise<RunStore> {
  const opened: RunStore[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    reset();
  });
  return async () => {
    const store = await factory(clock);
    opened.push(store);
    return store;
  };
}

/** Two connections to one shared store (two processes on one server): the newer claim fences the older owner. */
export function sharedStoreFencing(where: string, open: () => RunStore): void {
  it(`fences an owner on another connection: two processes sharing one ${where} never merge their writes`, async () => {
    const first = open();
    const second = open();
    const old = await first.create(header('shared'), { ...liveOwner('old'), pid: deadPid() }, 60_000);
    const { claim } = await second.claim('shared', liveOwner('new'));
    await second.append(claim, [entry(1, 'new')]);
    await expect(first.append(old, [entry(2, 'old')])).rejects.toMatchObject(staleClaimRefusal);
    expect((await first.journal('shared')).map((item) => item.data)).toEqual(['new']);
    await Promise.all([first.close(), second.close()]);
  });
}

export function storeConformance(name: string, factory: StoreFactory): void {
  describe(`${name}: RunStore conformance`, () => {
    let now = 10_000;
    const open = storeOpener(factory, { now: () => now }, () => (now = 10_000));
    const alice = liveOwner('alice');
    const bob = liveOwner('bob');

    it('creates a run with epoch 1 held by its creator, and refuses a taken id', async () => {
      const store = await open();
      const claim = await store.create(header('r1'), alice, 5_000);
      expect(claim).toEqual({ runId: 'r1', epoch: 1, owner: alice });
      const run = await store.get('r1');
      expect(run).toMatchObject({
        ...header('r1'),
        status: 'running',
        epoch: 1,
        owner: alice,
        leaseUntil: 15_000,
        head: 0,
        iterations: 0,
        tokens: 0,
        answer: null,
        outcome: null,
        updatedAt: 10_000,
      });
      await expect(store.create(header('r1'), bob, 5_000)).rejects.toBeInstanceOf(RunExistsError);
      expect(await store.get('nope')).toBeUndefined();
    });

    it('appends contiguous journal entries with a checkpoint, and reads them back after a seq', async () => {
      const store = await open();
      const claim = await store.create(header('r1'), alice, 5_000);
      await store.append(claim, [entry(1), entry(2)]);
      await store.append(claim, [entry(3)], { checkpoint: checkpoint(3), progress: { iterations: 2, tokens: 77 } });
      expect((await store.journal('r1')).map((item) => item.seq)).toEqual([1, 2, 3]);
      expect(await store.journal('r1', 1)).toEqual([entry(2), entry(3)]);
      expect(await store.journal('r1', 3)).toEqual([]);
      expect(await store.latestCheckpoint('r1')).toEqual(checkpoint(3));
      expect(await store.get('r1')).toMatchObject({ head: 3, iterations: 2, tokens: 77 });
      await store.append(claim, [], { checkpoint: checkpoint(3, { iteration: 3 }) });
      await store.append(claim, [entry(4)], { checkpoint: checkpoint(4, { iteration: 4 }) });
      expect((await store.checkpoints('r1')).map((item) => [item.seq, item.state])).toEqual([
        [3, { iteration: 3 }],
        [4, { iteration: 4 }],
      ]);
      expect((await store.latestCheckpoint('r1'))?.state).toEqual({ iteration: 4 });
      // The text the writer made (to hash the state) is what is kept: the state is not stringified again.
      const stateJson = JSON.stringify({ iteration: 5, note: 'as text' });
      await store.append(claim, [entry(5)], { checkpoint: { ...checkpoint(5, { iteration: 5 }), stateJson } });
      expect(await store.latestCheckpoint('r1')).toEqual(checkpoint(5, { iteration: 5, note: 'as text' }));
      await store.append(claim, [entry(6)], {
        checkpoint: checkpoint(6, { iteration: 6 }),
        dropEarlierCheckpoints: true,
      });
      expect(await store.checkpoints('r1')).toEqual([checkpoint(6, { iteration: 6 })]);
      await store.append(claim, [entry(7)], { checkpoint: checkpoint(7) });
      expect((await store.checkpoints('r1')).map((item) => item.seq)).toEqual([6, 7]);
    });

    it('takes a checkpoint at any entry of the write (a writer may hold one until its next write), none outside it', async () => {
      const store = await open();
      const claim = await store.create(header('r1'), alice, 5_000);
      await store.append(claim, [entry(1)]);
      await store.append(claim, [entry(2), entry(3), entry(4)], { checkpoint: checkpoint(3) });
      expect((await store.latestCheckpoint('r1'))?.seq).toBe(3);
      await expect(store.append(claim, [entry(5)], { checkpoint: checkpoint(4) })).rejects.toMatchObject(
        sequenceRefusal,
      );
      await expect(store.append(claim, [entry(5)], { checkpoint: checkpoint(6) })).rejects.toMatchObject(
        sequenceRefusal,
      );
      expect((await store.get('r1'))?.head).toBe(4);
    });

    it('refuses a first seq other than head + 1, a gap, or a checkpoint off the new head, and writes nothing then', async () => {
      const store = await open();
      const claim = await store.create(header('r1'), alice, 5_000);
      await expect(store.append(claim, [entry(2)])).rejects.toThrow(sequenceMismatch('r1', 1, 2));
      await store.append(claim, [entry(1)]);
      await expect(store.append(claim, [entry(1)])).rejects.toMatchObject(sequenceRefusal);
      await expect(store.append(claim, [entry(2), entry(4)])).rejects.toThrow('expected seq 3, got 4');
      await expect(store.append(claim, [entry(2)], { checkpoint: checkpoint(1) })).rejects.toMatchObject(
        sequenceRefusal,
      );
      expect((await store.journal('r1')).map((item) => item.seq)).toEqual([1]);
      expect(await store.latestCheckpoint('r1')).toBeUndefined();
      expect((await store.get('r1'))?.head).toBe(1);
    });
    it('finishes a run: outcome recorded, owner released, the claim spent, a completed run never reopened', async () => {
      const store = await open();
      const claim = await store.create(header('r1'), alice, 5_000);
      now += 10;
      await store.finish(claim, outcome());
      expect(await store.get('r1')).toMatchObject({
        status: 'completed',
        owner: null,
        leaseUntil: null,
        answer: '42',
        iterations: 3,
        tokens: 120,
        outcome: outcome(),
        updatedAt: 10_010,
      });
      await expect(store.append(claim, [entry(1)])).rejects.toThrow('was already finished or released at epoch 1');
      await expect(store.claim('r1', bob)).rejects.toThrow(new RunFinishedError('r1', 'completed'));
      await store
        .create(header('r2'), alice, 5_000)
        .then((second) => store.finish(second, outcome({ status: 'stopped' })));
      await expect(store.claim('r2', bob, { force: true })).rejects.toBeInstanceOf(RunFinishedError);
    });

    it('reopens a failed, cancelled or released run for a new owner without force', async () => {
      const store = await open();
      for (const [runId, end] of [
        ['failed', 'failed'],
        ['cancelled', 'cancelled'],
        ['released', 'interrupted'],
      ] as const) {
        const claim = await store.create(header(runId), alice, 60_000);
        if (runId === 'released') await store.release(claim, end);
        else await store.finish(claim, outcome({ status: end, answer: null }));
        expect((await store.get(runId))?.status).toBe(end);
        await expect(store.heartbeat(claim, 1_000)).rejects.toMatchObject(staleClaimRefusal);
        const { claim: next, run } = await store.claim(runId, bob);
        expect([next.epoch, run.status, run.owner]).toEqual([2, 'running', bob]);
      }
    });

    it('lists runs newest first, by status, up to a limit', async () => {
      const store = await open();
      const claims = [];
      for (const [runId, createdAt] of [
        ['a', 1],
        ['b', 3],
        ['c', 2],
        ['d', 3],
      ] as const)
        claims.push(await store.create(header(runId, { createdAt }), alice, 5_000));
      await store.finish(claims[2]!, outcome());
      await store.release(claims[0]!, 'interrupted');
      expect((await store.list()).map((run) => run.runId)).toEqual(['d', 'b', 'c', 'a']);
      expect((await store.list({ limit: 2 })).map((run) => run.runId)).toEqual(['d', 'b']);
      expect((await store.list({ status: 'running' })).map((run) => run.runId)).toEqual(['d', 'b']);
      expect((await store.list({ status: 'completed' })).map((run) => [run.runId, run.answer])).toEqual([['c', '42']]);
      expect(await store.list({ status: 'failed' })).toEqual([]);
      expect(await store.list({ limit: 0 })).toEqual([]);
      await expect(store.list({ limit: -3 })).rejects.toThrow('list limit must be a whole number >= 0, got -3');
    });

    it('pages through the list with before: each page starts just after the run named, ties in recording order', async () => {
      const store = await open();
      const claims = [];
      for (const [runId, createdAt] of [
        ['a', 1],
        ['b', 3],
        ['c', 2],
        ['d', 3],
        ['e', 2],
      ] as const)
        claims.push(await store.create(header(runId, { createdAt }), alice, 5_000));
      await store.finish(claims[1]!, outcome());
      await store.finish(claims[4]!, outcome());
      const ids = async (filter: Parameters<typeof store.list>[0]) =>
        (await store.list(filter)).map((run) => run.runId);
      expect(await ids({})).toEqual(['d', 'b', 'e', 'c', 'a']);
      expect(await ids({ limit: 2, before: 'd' })).toEqual(['b', 'e']);
      expect(await ids({ limit: 2, before: 'e' })).toEqual(['c', 'a']);
      expect(await ids({ before: 'c' })).toEqual(['a']);
      expect(await ids({ limit: 2, before: 'a' })).toEqual([]);
      expect(await ids({ status: 'completed', before: 'd' })).toEqual(['b', 'e']);
      expect(await ids({ status: 'completed', before: 'b', limit: 5 })).toEqual(['e']);
      expect(await ids({ status: 'running', before: 'b' })).toEqual(['c', 'a']);
      await expect(store.list({ before: 'no-such-run' })).rejects.toThrow(/no-such-run/);
    });

    it('keeps copies: later changes to what was stored or read back change nothing stored', async () => {
      const store = await open();
      const input = header('r1', { input: { task: 'original', nested: { list: [1] } } });
      const claim = await store.create(input, alice, 5_000);
      (input.input.nested as { list: number[] }).list.push(2);
      const data = { text: 'model said', calls: [{ id: 'c1' }] };
      const state = { iteration: 2, messages: [{ role: 'user', content: 'hi' }] };
      await store.append(claim, [entry(1, data)], { checkpoint: checkpoint(1, state) });
      data.calls.push({ id: 'c2' });
      state.messages.push({ role: 'assistant', content: 'changed' });
      claim.owner.id = 'mallory';
      const [read] = await store.journal('r1');
      (read!.data as typeof data).calls.length = 0;
      const saved = await store.latestCheckpoint('r1');
      saved!.state.iteration = 99;
      (await store.get('r1'))!.input.task = 'changed';
      expect((await store.get('r1'))?.input).toEqual({ task: 'original', nested: { list: [1] } });
      expect((await store.journal('r1'))[0]?.data).toEqual({ text: 'model said', calls: [{ id: 'c1' }] });
      expect((await store.latestCheckpoint('r1'))?.state).toEqual({
        iteration: 2,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect((await store.get('r1'))?.owner?.id).toBe('alice');
    });

    it('names an unknown run, a closed store and a non-JSON value in one line each', async () => {
      const store = await open();
      await expect(store.claim('ghost', bob)).rejects.toThrow(runNotFound('ghost'));
      await expect(store.journal('ghost')).rejects.toMatchObject({ code: 'not_found' });
      await expect(store.latestCheckpoint('ghost')).rejects.toMatchObject({ code: 'not_found' });
      await expect(store.append({ runId: 'ghost', epoch: 1, owner: bob }, [entry(1)])).rejects.toMatchObject({
        code: 'not_found',
      });
      const claim = await store.create(header('r1'), alice, 5_000);
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(store.append(claim, [entry(1, cyclic as never)])).rejects.toThrow(
        /^journal entry 1 of run r1 is not JSON/,
      );
      await expect(store.heartbeat(claim, -1)).rejects.toThrow('leaseMs must be a number of ms >= 0, got -1');
      expect((await store.get('r1'))?.head).toBe(0);
      await store.close();
      const closed = store.get('r1');
      await expect(closed).rejects.toMatchObject({ code: 'store' });
      await expect(closed).rejects.toThrow('is closed');
      await store.close();
    });
  });
}
