// A child process holding a real sqlite store, driven one JSON line at a time over stdin; it answers each command
// with one JSON line on stdout. Tests use it to race claims, stall an owner and kill a writer.
import { createInterface } from 'node:readline';
import { makeOwner } from '../../src/store/location.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import type { Claim, RunStore } from '../../src/store/types.js';
import { codeOf } from '../../src/common/stageloop-error.js';

export type WorkerCommand =
  | { op: 'open'; file: string }
  | { op: 'openEach'; files: string[] }
  | { op: 'create'; runId: string; leaseMs: number }
  | { op: 'claim'; runId: string; leaseMs: number }
  | { op: 'append'; runId: string; seq: number; data: string }
  | { op: 'exit' };

export type WorkerAnswer = { ok: true; epoch?: number } | { ok: false; code: string; message: string };

let store: RunStore | undefined;
const claims = new Map<string, Claim>();
const owner = makeOwner();

async function perform(command: WorkerCommand): Promise<WorkerAnswer> {
  if (command.op === 'open') {
    store = sqliteStore(command.file, { busyTimeoutMs: 5_000 });
    return { ok: true };
  }
  if (command.op === 'openEach') {
    // Opening (so creating) many new stores back to back makes a collision with another creator likely.
    for (const file of command.files) await sqliteStore(file, { busyTimeoutMs: 5_000 }).close();
    return { ok: true };
  }
  if (command.op === 'exit') process.exit(0);
  if (store === undefined) throw new Error('open a store first');
  if (command.op === 'create') {
    const header = {
      runId: command.runId,
      pipeline: 'worker',
      fingerprint: 'f',
      version: '0',
      input: { task: 'worker' },
      options: {},
      createdAt: Date.now(),
    };
    claims.set(command.runId, await store.create(header, owner, command.leaseMs));
    return { ok: true, epoch: 1 };
  }
  if (command.op === 'claim') {
    const { claim } = await store.claim(command.runId, owner, { leaseMs: command.leaseMs });
    claims.set(command.runId, claim);
    return { ok: true, epoch: claim.epoch };
  }
  const claim = claims.get(command.runId);
  if (claim === undefined) throw new Error(`no claim on ${command.runId}`);
  await store.append(claim, [
    {
      seq: command.seq,
      kind: 'tool',
      zone: 'iteration',
      iteration: 1,
      stage: 'act',
      at: Date.now(),
      data: command.data,
    },
  ]);
  return { ok: true, epoch: claim.epoch };
}

for await (const line of createInterface({ input: process.stdin })) {
  const answer = await perform(JSON.parse(line) as WorkerCommand).catch((error: Error): WorkerAnswer => ({
    ok: false,
    code: codeOf(error),
    message: error.message,
  }));
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
