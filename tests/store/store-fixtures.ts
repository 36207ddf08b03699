// The records the store tests write: a run header, journal entries, checkpoints, outcomes and owners (a live one on
// this host, or a pid that is gone). Re-exported by conformance.ts.
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import type { Checkpoint, StoredEntry, Owner, RunHeader, RunOutcomeRecord } from '../../src/store/types.js';

export function header(runId: string, overrides: Partial<RunHeader> = {}): RunHeader {
  return {
    runId,
    pipeline: 'react',
    fingerprint: 'f1',
    version: '0.1.0',
    input: { task: `task of ${runId}` },
    options: { finalizeLimitMs: 10_000 },
    createdAt: 1_000,
    ...overrides,
  };
}

export function entry(seq: number, data: StoredEntry['data'] = { seq }): StoredEntry {
  return { seq, kind: 'model', zone: 'iteration', iteration: 1, stage: 'think', at: 2_000 + seq, data };
}

export function checkpoint(seq: number, state: Checkpoint['state'] = { iteration: 2 }): Checkpoint {
  return {
    seq,
    position: { zone: 'iteration', iteration: 2, nextStage: 1, steer: null, breakRequested: false, ended: null },
    state,
    stateHash: `hash-${seq}`,
    at: 3_000 + seq,
  };
}

export function outcome(overrides: Partial<RunOutcomeRecord> = {}): RunOutcomeRecord {
  return {
    status: 'completed',
    answer: '42',
    partial: false,
    stopReason: { kind: 'completed', stage: 'finish', message: 'done' },
    iterations: 3,
    tokens: 120,
    result: { runId: 'r' },
    ...overrides,
  };
}

/** A pid that no process has any more: a child that already exited (and was reaped). */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid;
}

/** This machine's host name, as an owner on it is recorded. */
export const here = hostname();
export const liveOwner = (id: string): Owner => ({ id, pid: process.pid, host: here });
