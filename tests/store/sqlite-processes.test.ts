// sqliteStore across real processes: racing claims (and creators), a stalled owner that wakes up late, a killed writer.
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeOwner } from '../../src/store/location.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { RunBusyError } from '../../src/store/types.js';
import { deadPid, entry, header } from './conformance.js';
import { canRunAs, startWorker, type Worker } from './worker-client.js';

const directory = mkdtempSync(join(tmpdir(), 'stageloop-processes-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const workers: Worker[] = [];
const start = (user: { uid?: number; gid?: number } = {}) => {
  const worker = startWorker(user);
  workers.push(worker);
  return worker;
};
afterEach(() => {
  for (const worker of workers.splice(0)) worker.stop();
});
/** Claims the run as soon as its lease lets it be claimed: each refusal (RunBusyError) polls again 10 ms later. */
async function claimOnceFree(
  store: ReturnType<typeof sqliteStore>,
  runId: string,
  owner: ReturnType<typeof makeOwner>,
): ReturnType<ReturnType<typeof sqliteStore>['claim']> {
  for (;;) {
    try {
      return await store.claim(runId, owner);
    } catch (error) {
      if (!(error instanceof RunBusyError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

// Each test starts real node processes, which takes seconds on a loaded machine.
describe('sqliteStore with several processes', { timeout: 60_000 }, () => {
  it('lets exactly one of two processes win each claim they race for, on a store they created together', async () => {
    const file = join(directory, 'race', 'stageloop.db');
    const [first, second] = [start(), start()];
    const opened = await Promise.all([first, second].map((worker) => worker.send({ op: 'open', file })));
    expect(opened).toEqual([{ ok: true }, { ok: true }]);
    const store = sqliteStore(file);
    const runs = ['r1', 'r2', 'r3', 'r4', 'r5'];
    for (const runId of runs)
      await store.create(header(runId), { id: 'gone', pid: deadPid(), host: makeOwner().host }, 60_000);
    for (const runId of runs) {
      const answers = await Promise.all(
        [first, second].map((worker) => worker.send({ op: 'claim', runId, leaseMs: 60_000 })),
      );
      const winners = answers.filter((answer) => answer.ok);
      const losers = answers.filter((answer) => !answer.ok);
      expect(winners).toEqual([{ ok: true, epoch: 2 }]);
      expect(losers).toEqual([
        {
          ok: false,
          code: 'busy',
          message: expect.stringContaining(`run ${runId} is being resumed by another process`),
        },
      ]);
    }
    expect((await store.list()).map((run) => run.epoch)).toEqual([2, 2, 2, 2, 2]);
    await store.close();
  });

  it('creates each new store from four processes at once without an error', async () => {
    const creators = [start(), start(), start(), start()];
    const files = Array.from({ length: 40 }, (_, index) => join(directory, `created-${index}`, 'stageloop.db'));
    const answers = await Promise.all(creators.map((worker) => worker.send({ op: 'openEach', files })));
    expect(answers).toEqual(creators.map(() => ({ ok: true })));
    const store = sqliteStore(files[39]!);
    expect(await store.list()).toEqual([]);
    await store.close();
  });

  it('refuses the late write of a SIGSTOPped owner whose lease expired and whose run was claimed meanwhile', async () => {
    const file = join(directory, 'stalled', 'stageloop.db');
    const stalled = start();
    await stalled.send({ op: 'open', file });
    expect(await stalled.send({ op: 'create', runId: 'r1', leaseMs: 2_000 })).toEqual({ ok: true, epoch: 1 });
    expect(await stalled.send({ op: 'append', runId: 'r1', seq: 1, data: 'before the stall' })).toMatchObject({
      ok: true,
    });
    process.kill(stalled.pid, 'SIGSTOP');
    const store = sqliteStore(file);
    const successor = makeOwner();
    // Its pid is alive, so only the lease's end frees the run.
    await expect(store.claim('r1', successor)).rejects.toBeInstanceOf(RunBusyError);
    // Wait on the condition itself (the run can be claimed), not on a clock guess of when the lease ends.
    const { claim } = await claimOnceFree(store, 'r1', successor);
    expect(claim.epoch).toBe(2);
    await store.append(claim, [entry(2, 'successor')]);
    stalled.write({ op: 'append', runId: 'r1', seq: 2, data: 'late write' });
    process.kill(stalled.pid, 'SIGCONT');
    expect(await stalled.next()).toEqual({
      ok: false,
      code: 'conflict',
      message: "run r1 was claimed by another owner (epoch 2); this owner's write at epoch 1 was refused",
    });
    expect((await store.journal('r1')).map((item) => item.data)).toEqual(['before the stall', 'successor']);
    await store.close();
  });

  it('refuses the write of a non-root owner whose store was made read-only with chmod', async (context) => {
    const nobody = 65534;
    if (!canRunAs(nobody)) context.skip('needs root, and a user "nobody" who can read this checkout');
    // A folder of its own in the temporary directory: mkdtemp's folders are closed to other users.
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-nobody-'));
    chownSync(folder, nobody, nobody);
    const file = join(folder, 'stageloop.db');
    const writer = start({ uid: nobody, gid: nobody });
    try {
      expect(await writer.send({ op: 'open', file })).toEqual({ ok: true });
      expect(await writer.send({ op: 'create', runId: 'r1', leaseMs: 60_000 })).toEqual({ ok: true, epoch: 1 });
      chmodSync(file, 0o444);
      expect(await writer.send({ op: 'append', runId: 'r1', seq: 1, data: 'after chmod' })).toEqual({
        ok: false,
        code: 'store',
        message: `store ${file} was made read-only (EACCES): make it writable, then resume the run`,
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('keeps every acknowledged write of a SIGKILLed owner, and frees its run at once', async () => {
    const file = join(directory, 'killed', 'stageloop.db');
    const doomed = start();
    await doomed.send({ op: 'open', file });
    await doomed.send({ op: 'create', runId: 'r1', leaseMs: 3_600_000 });
    for (let seq = 1; seq <= 20; seq++)
      expect(await doomed.send({ op: 'append', runId: 'r1', seq, data: `entry ${seq}` })).toMatchObject({ ok: true });
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const store = sqliteStore(file);
    expect((await store.journal('r1')).map((item) => item.seq)).toEqual(
      Array.from({ length: 20 }, (_, index) => index + 1),
    );
    expect((await store.claim('r1', makeOwner())).claim.epoch).toBe(2);
    await store.close();
  });
});
