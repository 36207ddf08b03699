// Two owners of one run, as real processes, on any store: two resumers racing for a killed run, and an owner paused
// (SIGSTOP) past its lease whose run another process takes over; the run must still end exactly as an uninterrupted one.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectiveJournal } from '../../src/durable/effective-journal.js';
import { delay } from './crash-harness.js';
import { openLab, resultOf, type Lab, type LabStore } from './crash-lab.js';
import { expectRecovered, lastAcknowledged } from './crash-recovery.js';

/** The state letter Linux shows for a process: T while it is stopped. */
function processState(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .charAt(0);
}

/** The owner tests on one kind of store; `extra` adds tests of that store that need the same lab. */
export function describeOwners(kind: LabStore, extra?: (lab: () => Lab) => void): void {
  let lab: Lab;
  beforeAll(async () => {
    lab = await openLab(kind);
  }, 120_000);
  afterAll(() => lab?.dispose(), 60_000);
  extra?.(() => lab);

  describe.concurrent(`owners of one run (${kind})`, () => {
    it('two processes resuming a killed run at once: exactly one runs it, the other is told it is being resumed', async () => {
      const setup = await lab.setUp('two-resumers', 'answer');
      try {
        const first = lab.launch(setup, 'start', 1);
        // Killed early, so the winner has most of the run still to do when the loser claims.
        first.onLine((line) => line === 'tool 1' && setTimeout(() => first.kill('SIGKILL'), 5));
        expect((await first.exited).signal).toBe('SIGKILL');
        const journalAfter = await setup.store.journal(setup.config.runId);

        // Both load and open the store first, then claim on the same signal, within a millisecond or so of each other.
        const resumers = [2, 3].map((attempt) => lab.launch(setup, 'resume', attempt, { waitForGo: true }));
        await Promise.all(resumers.map((resumer) => resumer.waitForLine((line) => line === 'ready')));
        for (const resumer of resumers) resumer.process.stdin.write('go\n');
        const exits = await Promise.all(resumers.map((resumer) => resumer.exited));
        expect(exits.map((exit) => exit.code).sort()).toEqual([0, 3]);
        const winner = resumers[exits.findIndex((exit) => exit.code === 0)]!;
        const loser = resumers[exits.findIndex((exit) => exit.code === 3)]!;
        expect(loser.stderr.trim()).toBe(
          `refused RunBusyError: run ${setup.config.runId} is being resumed by another process (pid ${winner.process.pid} on ${hostname()}); wait for it`,
        );
        expect(loser.lines.filter((line) => line.startsWith('appended ') || line.startsWith('tool '))).toEqual([]);

        const interruptions = [{ attempt: 1, journalAfter, acknowledged: lastAcknowledged(first.lines) }];
        await expectRecovered(
          setup.store,
          setup.config,
          await lab.reference('answer'),
          interruptions,
          resultOf(winner),
        );
      } finally {
        await lab.tearDown(setup);
      }
    }, 60_000);

    it('an owner paused past its lease wakes after another process took the run over: its late writes are refused', async () => {
      const setup = await lab.setUp('paused-owner', 'answer');
      const leaseMs = 400;
      try {
        // It stops itself inside tool call 2: its side effect is done, its result not yet recorded.
        const old = lab.launch(setup, 'start', 1, { leaseMs, pauseAtStep: 2 });
        await old.waitForLine((line) => line === 'tool 2');
        for (let tries = 0; tries < 100 && processState(old.process.pid!) !== 'T'; tries++) await delay(10);
        expect(processState(old.process.pid!)).toBe('T');
        const journalAtPause = await setup.store.journal(setup.config.runId);
        // A paused process renews nothing: wait until its lease has run out (the process is alive, so only time frees it).
        for (
          let tries = 0;
          tries < 100 && ((await setup.store.get(setup.config.runId))?.leaseUntil ?? 0) >= Date.now();
          tries++
        )
          await delay(20);

        const taker = lab.launch(setup, 'resume', 2);
        await taker.waitForLine((line) => line.startsWith('appended '));
        expect((await setup.store.get(setup.config.runId))?.epoch).toBe(2);
        const seenBeforeWaking = old.lines.length;
        old.kill('SIGCONT');
        const [oldExit, takerExit] = await Promise.all([old.exited, taker.exited]);
        expect(takerExit.code, taker.stderr).toBe(0);
        expect(oldExit.code, old.stderr).toBe(0);

        // The old owner went on, but the store refused every write it made after waking; its run ended failed (store).
        expect(old.lines.slice(seenBeforeWaking).filter((line) => line.startsWith('appended '))).toEqual([]);
        const late = resultOf(old);
        expect(late.status).toBe('failed');
        expect(late.stopReason.kind).toBe('store');
        expect(late.stopReason.message).toContain(
          `run ${setup.config.runId} was claimed by another owner (epoch 2); this owner's write at epoch 1 was refused`,
        );
        const run = await setup.store.get(setup.config.runId);
        expect(run).toMatchObject({ status: 'completed', epoch: 2, owner: null });
        // Never merged: each tool call is in the journal once, though both processes finished call 2.
        const journal = await setup.store.journal(setup.config.runId);
        const toolEntries = journal.filter((entry) => entry.kind === 'tool');
        expect(toolEntries.length).toBe(effectiveJournal(journal).filter((entry) => entry.kind === 'tool').length);

        // Call 2 was in flight when the old owner paused, so the new one made it again: the one allowed repeat.
        const stepTwo = readFileSync(setup.config.sideLog, 'utf8')
          .split('\n')
          .filter((line) => line.split('\t')[1] === '2');
        expect(stepTwo.map((line) => line.split('\t')[0])).toEqual(['1', '2']);

        const interruptions = [{ attempt: 1, journalAfter: journalAtPause, acknowledged: lastAcknowledged(old.lines) }];
        await expectRecovered(setup.store, setup.config, await lab.reference('answer'), interruptions, resultOf(taker));
      } finally {
        await lab.tearDown(setup);
      }
    }, 60_000);
  });
}
