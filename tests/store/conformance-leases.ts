// The RunStore conformance suite, leases and fencing: who may claim a run, when, and what a stale owner may write.
import { describe, expect, it } from 'vitest';
import { RunBusyError, staleClaim } from '../../src/store/types.js';
import { checkpoint, deadPid, entry, header, here, liveOwner, outcome } from './store-fixtures.js';
import { staleClaimRefusal, storeOpener, type StoreFactory } from './conformance.js';

/** The lease half of the conformance suite: every adapter's test runs it beside `storeConformance`. */
export function storeLeaseConformance(name: string, factory: StoreFactory): void {
  describe(`${name}: RunStore conformance`, () => {
    let now = 10_000;
    const open = storeOpener(factory, { now: () => now }, () => (now = 10_000));
    const alice = liveOwner('alice');
    const bob = liveOwner('bob');

    it('fences a stale owner: after a newer claim every write of the old one is refused, never merged', async () => {
      const store = await open();
      const old = await store.create(header('r1'), { ...alice, pid: deadPid() }, 60_000);
      await store.append(old, [entry(1)]);
      const { claim: fresh, run } = await store.claim('r1', bob);
      expect(fresh.epoch).toBe(2);
      expect(run).toMatchObject({ epoch: 2, owner: bob, status: 'running', head: 1 });
      await store.append(fresh, [entry(2, 'new owner')]);
      const stale = staleClaim('r1', 1, 2);
      await expect(store.append(old, [entry(3, 'old owner')])).rejects.toThrow(stale);
      await expect(store.append(old, [entry(2, 'old owner')], { checkpoint: checkpoint(2) })).rejects.toMatchObject(
        staleClaimRefusal,
      );
      await expect(store.heartbeat(old, 1_000)).rejects.toMatchObject(staleClaimRefusal);
      await expect(store.finish(old, outcome())).rejects.toMatchObject(staleClaimRefusal);
      await expect(store.release(old, 'interrupted')).rejects.toMatchObject(staleClaimRefusal);
      expect((await store.journal('r1')).map((item) => item.data)).toEqual([{ seq: 1 }, 'new owner']);
      expect(await store.get('r1')).toMatchObject({ status: 'running', epoch: 2, owner: bob, head: 2 });
      await expect(store.append({ ...fresh, owner: alice }, [entry(3)])).rejects.toMatchObject(staleClaimRefusal);
    });

    it('refuses a claim while a live owner on this host holds the lease, and names that owner', async () => {
      const store = await open();
      await store.create(header('r1'), alice, 5_000);
      const refusal = store.claim('r1', bob);
      await expect(refusal).rejects.toBeInstanceOf(RunBusyError);
      await expect(refusal).rejects.toThrow(
        `run r1 is being resumed by another process (pid ${process.pid} on ${here})`,
      );
      expect((await store.get('r1'))?.epoch).toBe(1);
    });

    it('frees a run at once when its owner pid on this host is dead, even with time left on the lease', async () => {
      const store = await open();
      await store.create(header('r1'), { id: 'ghost', pid: deadPid(), host: here }, 3_600_000);
      const { claim } = await store.claim('r1', bob, { leaseMs: 1_000 });
      expect(claim.epoch).toBe(2);
      expect((await store.get('r1'))?.leaseUntil).toBe(11_000);
      // kill(0) would signal our own process group and look alive: a pid that cannot be a process frees the run too.
      await store.create(header('r2'), { id: 'broken', pid: 0, host: here }, 3_600_000);
      expect((await store.claim('r2', bob)).claim.epoch).toBe(2);
    });

    it('holds a run for an owner on another host until its lease expires; heartbeats and appends renew it', async () => {
      const store = await open();
      const remote = await store.create(header('r1'), { id: 'far', pid: deadPid(), host: 'elsewhere' }, 5_000);
      now += 4_000;
      await store.heartbeat(remote, 5_000);
      now += 4_000;
      await expect(store.claim('r1', bob)).rejects.toBeInstanceOf(RunBusyError);
      await store.append(remote, [entry(1)], { leaseMs: 5_000 });
      now += 4_999;
      await expect(store.claim('r1', bob)).rejects.toBeInstanceOf(RunBusyError);
      now += 1;
      expect((await store.claim('r1', bob)).claim.epoch).toBe(2);
    });

    it('holds a run for a live local owner only until its lease expires (a stopped process keeps its pid)', async () => {
      const store = await open();
      await store.create(header('r1'), alice, 5_000);
      now += 5_000;
      expect((await store.claim('r1', bob)).claim).toMatchObject({ epoch: 2, owner: bob });
    });

    it('takes a busy run with force, and lets the holder claim its own run again', async () => {
      const store = await open();
      const first = await store.create(header('r1'), alice, 60_000);
      expect((await store.claim('r1', alice)).claim.epoch).toBe(2);
      await expect(store.append(first, [entry(1)])).rejects.toMatchObject(staleClaimRefusal);
      const forced = await store.claim('r1', bob, { force: true });
      expect(forced.claim.epoch).toBe(3);
      expect(forced.run.owner).toEqual(bob);
    });
  });
}
