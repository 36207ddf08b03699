// The durability seam: at every stage boundary it records the stage's end (signal, state hash), takes a checkpoint
// when one is due, serves the recording while catching up or replaying, and at the end records the outcome.
import type { JsonObject } from '../common/json.js';
import type { TraceHeaders } from '../common/trace-headers.js';
import type { Pipeline } from '../engine/pipeline.js';
import type { RunCursor, RunPosition, RunSeam } from '../engine/run-seam.js';
import type { RunResult } from '../engine/run-result.js';
import type { Signal } from '../engine/signal.js';
import type { Deps } from '../engine/stage.js';
import type { RunState } from '../engine/state.js';
import type { RunOutcomeRecord, RunStore } from '../store/types.js';
import { place, shortDiff } from './divergence.js';
import { stateDigest, type StateDigest } from './hashing.js';
import { jsonOf, positionJson, type JournalEntries, type RecordedSignal } from './journal-entries.js';
import { journaledDeps, type PortOptions } from './journaled-ports.js';
import type { JournalWriter, RunJournal } from './run-journal.js';

declare module '../engine/stage.js' {
  interface Deps {
    /** The store a recorded run is recorded in (set by the journal seam): runs its tools start are recorded beside it. */
    runStore?: RunStore;
  }
}

/**
 * About this many bytes of state may be rewritten per iteration: a growing state is checkpointed less often, so a
 * turn's share of the checkpoints' JSON text and hash stays about this size however large the state grows.
 */
const checkpointBytesPerIteration = 1024;

/** `stage`: a state hash after every stage, so a replay names the exact stage whose state differs; `iteration` (the
 * name kept from when it hashed every iteration's end): only where a checkpoint is taken, whose JSON text it hashes. */
export type HashEvery = 'stage' | 'iteration';

export class JournalSeam implements RunSeam {
  private sinceCheckpoint = 0;
  private stateBytes = 0;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  /** Where the run last paused for a decision (a replay continues from there, as the resume did). */
  pausedAt: RunPosition | undefined;

  constructor(
    private readonly journal: RunJournal,
    private readonly pipeline: Pipeline,
    private readonly writer: JournalWriter | undefined,
    private readonly ports: PortOptions = {},
    private readonly hashEvery: HashEvery = 'iteration',
  ) {
    if (writer !== undefined) {
      // Renews the lease while a long model call records nothing; a stopped process stops renewing it.
      this.heartbeat = setInterval(
        () => void writer.store.heartbeat(writer.claim, writer.leaseMs).catch(() => undefined),
        Math.max(50, writer.leaseMs / 3),
      );
      this.heartbeat.unref();
    }
  }

  get firstTrace(): TraceHeaders | undefined {
    return this.journal.firstTrace;
  }

  rootSpanStarted(root: TraceHeaders): void {
    if (root.traceparent === undefined) return;
    this.journal.recordTrace({
      traceparent: root.traceparent,
      ...(root.tracestate !== undefined && { tracestate: root.tracestate }),
    });
  }

  wrapDeps(deps: Deps, cursor: RunCursor): Deps {
    const wrapped = journaledDeps(deps, cursor, this.journal, this.ports);
    // A run started by one of this run's tool calls (an agent) is recorded in the same store.
    if (this.writer !== undefined) wrapped.runStore = this.writer.store;
    return wrapped;
  }

  boundary(
    state: RunState,
    position: RunPosition,
    stage: string | null,
    signal: Signal | undefined,
  ): void | Promise<void> {
    const journal = this.journal;
    journal.check();
    const where = { zone: position.zone, iteration: position.iteration, stage };
    // A pause is checkpointed where it stands, so the resume re-enters the stage that asked.
    const paused = signal?.type === 'interrupt_run';
    if (paused) this.pausedAt = position;
    const passEnd = paused || stage === null || position.nextStage >= this.pipeline[position.zone].length;
    // The state's JSON and hash, made at most once a boundary and only where one is compared or kept.
    let digest: StateDigest | undefined;
    const digestOf = (): StateDigest => (digest ??= stateDigest(state));
    const signalJson = signal ? signalRecord(signal) : null;
    const served = journal.serve('stage', where, (entry) => {
      const data = entry.data;
      if (JSON.stringify(data.signal) !== JSON.stringify(signalJson)) {
        const [recorded, replayed] = [data.signal && jsonOf(data.signal), signalJson && jsonOf(signalJson)];
        return {
          ...where,
          what: 'signal',
          message: `${place(where)} returned another signal: ${shortDiff(recorded, replayed)}`,
          recorded,
          replayed,
        };
      }
      // A replay hashes wherever the recording did (an earlier version's recording: at every zone pass's end).
      if (data.hash === undefined || data.hash === digestOf().hash) return undefined;
      return {
        ...where,
        what: 'state',
        message: `the state after ${place(where)} differs from the recording`,
        recorded: data.hash,
        replayed: digestOf().hash,
      };
    });
    if (served !== undefined) return this.afterServed(position);
    // A live run hashes where it takes a checkpoint (the checkpoint's JSON text is made anyway), or after every stage.
    const due = passEnd && (paused || this.checkpointDue(position, stage));
    const data: JournalEntries['stage'] = { signal: signalJson };
    if (due || this.hashEvery === 'stage') data.hash = digestOf().hash;
    if (stage === null) data.ended = position.ended;
    journal.record('stage', where, data);
    if (!due) return undefined;
    const { text, hash } = digestOf();
    this.stateBytes = text.length;
    const progress = { iterations: state.iteration, tokens: state.usage.inputTokens + state.usage.outputTokens };
    const checkpoint = {
      position: positionJson(position),
      state: jsonOf(state),
      stateJson: text,
      stateHash: hash,
      at: Date.now(),
    };
    journal.hold(checkpoint, progress);
    // Entering finalize is written at once: a run that ends there must be resumable from it.
    return stage === null ? journal.flush().then(() => journal.check()) : undefined;
  }

  async finished(result: RunResult): Promise<void> {
    clearInterval(this.heartbeat);
    const writer = this.writer;
    if (writer === undefined) return;
    this.journal.check();
    await this.journal.flush();
    this.journal.check();
    await writer.store.finish(writer.claim, outcomeRecord(result));
  }

  /** A checkpoint after setup, at the end of an iteration when enough has changed, on entering finalize and at its end. */
  private checkpointDue(position: RunPosition, stage: string | null): boolean {
    if (stage === null) return true;
    const length = this.pipeline[position.zone].length;
    if (position.nextStage < length) return false;
    if (position.zone !== 'iteration') return true;
    this.sinceCheckpoint += 1;
    if (this.sinceCheckpoint * checkpointBytesPerIteration < this.stateBytes) return false;
    this.sinceCheckpoint = 0;
    return true;
  }

  /** A replay aborts where the recorded run was cancelled or hit a deadline between two stages. */
  private afterServed(position: RunPosition): undefined {
    const next = this.journal.peek();
    if (next?.kind !== 'stage' || next.stage !== null || position.ended !== null) return undefined;
    const ended = next.data.ended;
    if (ended === undefined || ended === null) return undefined;
    if (ended.status === 'cancelled') {
      const prefix = 'the run was cancelled by its caller: ';
      this.ports.onRecordedAbort?.({
        cancel: ended.message.startsWith(prefix) ? ended.message.slice(prefix.length) : null,
      });
    } else if (ended.status === 'stopped' && ended.kind !== 'max_iterations' && position.steer?.type !== 'abort_run') {
      this.ports.onRecordedAbort?.({
        deadline: { stage: ended.stage ?? '', kind: ended.kind, message: ended.message },
      });
    }
    return undefined;
  }
}

function signalRecord(signal: Signal): RecordedSignal {
  const record: RecordedSignal = { type: signal.type, kind: signal.kind, reason: signal.reason };
  if (signal.pending !== undefined) record.pending = signal.pending;
  return record;
}

/** The result as the store keeps it: JSON, without the state (checkpoints hold it) or thrown causes. */
export function outcomeRecord(result: RunResult): RunOutcomeRecord {
  const { state: _state, ...rest } = result;
  const json = JSON.parse(
    JSON.stringify(rest, (key, value: unknown) => (key === 'cause' ? undefined : value)),
  ) as JsonObject;
  return {
    status: result.status,
    answer: result.answer,
    partial: result.partial,
    stopReason: result.stopReason,
    iterations: result.iterations,
    tokens: result.usage.inputTokens + result.usage.outputTokens,
    result: json,
  };
}
