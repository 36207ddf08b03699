// The checks every crash scenario ends with: the recovered run equals the uninterrupted one, each tool call ran once
// (but for one in flight per kill), the journal is contiguous and lost nothing, and the run replays identically.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { effectiveJournal } from '../../src/durable/effective-journal.js';
import { stateDigest } from '../../src/durable/hashing.js';
import { replayRun } from '../../src/durable/replay.js';
import type { RunResult } from '../../src/engine/runner.js';
import type { StoredEntry, RunStore } from '../../src/store/types.js';
import type { ChildConfig } from './crash-child.js';
import { crashPipeline } from './crash-pipelines.js';

/** What an uninterrupted run ended with, the yardstick of every recovered one. */
export interface Reference {
  result: RunResult;
  /** The state the store's last checkpoint holds. */
  checkpointState: unknown;
}

/** One process of a recovered run that did not finish: killed, or stopped and overtaken. */
export interface Interruption {
  /** The attempt number the process wrote into the side-effect log. */
  attempt: number;
  /** The journal as the store held it right after the process died (or was overtaken). */
  journalAfter: StoredEntry[];
  /** The last head the process saw acknowledged ("appended N"), 0 when none. */
  acknowledged: number;
}

/**
 * The tool executor measures each call with performance.now(): its durationMs (in state.turn.results, still there
 * when a run stops at its cap) differs between any two live executions of the same call, so it is the one field
 * dropped from states before comparing them with the uninterrupted run (within one recorded run it is exact).
 */
export function withoutTimings(state: unknown): unknown {
  return JSON.parse(JSON.stringify(state), (key, field: unknown) => (key === 'durationMs' ? undefined : field));
}

const normalHash = (state: unknown): string => stateDigest(withoutTimings(state) as object).hash;

/**
 * The fields of a result that must not depend on how often the run was interrupted: all but `stages`, whose call
 * counts and times are this process's own (a resumed process ran fewer stages, on another clock), and the state.
 */
export function comparable(
  result: Pick<
    RunResult,
    'status' | 'answer' | 'partial' | 'stopReason' | 'iterations' | 'usage' | 'warnings' | 'error'
  >,
): unknown {
  const { status, answer, partial, stopReason, iterations, usage, warnings, error } = result;
  return { status, answer, partial, stopReason, iterations, usage, warnings, error: error ?? null };
}

export function lastAcknowledged(lines: readonly string[]): number {
  const heads = lines
    .filter((line) => /^appended \d+$/.test(line))
    .map((line) => Number(line.slice('appended '.length)));
  return heads.length === 0 ? 0 : Math.max(...heads);
}

/** Which step each recorded tool call of the run as it went has (the tool's arguments carry it). */
function recordedSteps(journal: readonly StoredEntry[]): number[] {
  return effectiveJournal(journal)
    .filter((entry) => entry.kind === 'tool')
    .flatMap((entry) =>
      ((entry.data as { calls: Array<{ arguments: string }> }).calls ?? []).map(
        (call) => (JSON.parse(call.arguments) as { step: number }).step,
      ),
    );
}

type RunConfig = Pick<ChildConfig, 'runId' | 'pipeline' | 'maxIterations' | 'sideLog'>;

/** `inFlight`: tool calls that may be in flight at once (plan steps side by side), so may run again after one kill. */
export async function expectRecovered(
  store: RunStore,
  { runId, pipeline, maxIterations, sideLog }: RunConfig,
  reference: Reference,
  interruptions: readonly Interruption[],
  finalResult: RunResult | undefined,
  inFlight = 1,
): Promise<void> {
  const run = await store.get(runId);
  expect(run?.status).toBe(reference.result.status);
  expect(comparable(run!.outcome!.result as unknown as RunResult)).toEqual(comparable(reference.result));
  if (finalResult !== undefined) {
    expect(comparable(finalResult)).toEqual(comparable(reference.result));
    expect(withoutTimings(finalResult.state)).toEqual(withoutTimings(reference.result.state));
  }
  const checkpoint = await store.latestCheckpoint(runId);
  expect(withoutTimings(checkpoint?.state)).toEqual(withoutTimings(reference.checkpointState));
  expect(normalHash(checkpoint?.state)).toBe(normalHash(reference.checkpointState));
  expect(checkpoint?.stateHash).toBe(stateDigest(checkpoint!.state).hash);
  if (finalResult !== undefined) expect(stateDigest(finalResult.state).hash).toBe(checkpoint?.stateHash);

  // Journal seqs are 1..head, and every entry seen after an interruption is still there, unchanged.
  const journal = await store.journal(runId);
  expect(journal.map((entry) => entry.seq)).toEqual(journal.map((_entry, index) => index + 1));
  expect(journal.length).toBe(run!.head);
  for (const interruption of interruptions) {
    expect(interruption.acknowledged).toBeLessThanOrEqual(interruption.journalAfter.length);
    expect(journal.slice(0, interruption.journalAfter.length)).toEqual(interruption.journalAfter);
  }

  // No checkpoint is torn or stray, kills inside their writes included: each follows the stage end it was taken at.
  const checkpoints = await store.checkpoints(runId);
  expect(checkpoints.map((saved) => saved.seq)).toEqual(
    [...new Set(checkpoints.map((saved) => saved.seq))].sort((left, right) => left - right),
  );
  for (const saved of checkpoints) {
    const entry = journal[saved.seq - 1];
    expect(entry?.kind).toBe('stage');
    expect((entry?.data as { hash?: string }).hash).toBe(saved.stateHash);
    expect(stateDigest(saved.state).hash).toBe(saved.stateHash);
  }

  expectToolsRanOnce(sideLog, recordedSteps(journal), interruptions, inFlight);

  const replay = await replayRun(store, runId, { pipeline: crashPipeline(pipeline, maxIterations) });
  expect(replay.divergence).toBeUndefined();
  expect(replay.identical).toBe(true);
  expect(replay.replayed.stateHash).toBe(replay.recorded.stateHash);
  expect(replay.replayed.stateHash).toBe(checkpoint?.stateHash);
}

/**
 * Every recorded call ran, nothing else did, and a call ran again only in the attempt right after an interruption
 * whose journal did not hold it yet: the one call in flight when that process died.
 */
function expectToolsRanOnce(
  sideLog: string,
  recorded: readonly number[],
  interruptions: readonly Interruption[],
  inFlight: number,
): void {
  const executions = readFileSync(sideLog, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [attempt, step] = line.split('\t');
      return { attempt: Number(attempt), step: Number(step) };
    });
  expect([...new Set(executions.map((execution) => execution.step))].sort((left, right) => left - right)).toEqual(
    [...recorded].sort((left, right) => left - right),
  );
  expect(new Set(recorded).size).toBe(recorded.length);
  const repeated = executions.length - recorded.length;
  expect(repeated).toBeLessThanOrEqual(interruptions.length * inFlight);
  for (const interruption of interruptions) {
    const acknowledged = new Set(recordedSteps(interruption.journalAfter));
    const ranBefore = executions.filter((execution) => execution.attempt <= interruption.attempt);
    const ranAfter = executions.filter((execution) => execution.attempt > interruption.attempt);
    // Acknowledged calls never run again; of the rest, only the interrupted process's calls in flight can run twice.
    const rerun = ranAfter.filter((execution) => ranBefore.some((earlier) => earlier.step === execution.step));
    const again = new Set(rerun.map((execution) => execution.step));
    expect([...again].filter((step) => acknowledged.has(step))).toEqual([]);
    expect(again.size).toBeLessThanOrEqual(inFlight);
  }
}
