// The runs this server started: each one's abort controller, its event log, and the promise of its result.
import type { JsonObject } from '../common/json.js';
import type { Pipeline } from '../engine/pipeline.js';
import type { RunResult } from '../engine/runner.js';
import type { Deps, RunEvent } from '../engine/stage.js';
import type { RunInput } from '../engine/state.js';
import { EventLog } from '../stream/event-log.js';

/** What one run needs, built by the application (the CLI assembles pipelines, models and tools; src/server cannot). */
export interface RunAssembly {
  pipeline: Pipeline;
  deps: Partial<Deps>;
  /** JSON kept with the run so `stageloop resume` can rebuild it. */
  record?: JsonObject;
}

/** Starts a recorded run (durable runPipeline with the server's store) and resolves with its result. */
export type RunStarter = (
  assembly: RunAssembly,
  input: RunInput,
  options: { deps: Partial<Deps>; signal: AbortSignal },
) => Promise<RunResult>;

/** Runs a run with the host's deps (its event listener) and abort signal. */
export type RunContinuer = (options: { deps: Partial<Deps>; signal: AbortSignal }) => Promise<RunResult>;

/** How to continue a stopped run (resumeRun with decisions, built by the application) and the deps it runs with. */
export interface RunContinuation {
  deps: Partial<Deps>;
  resume: RunContinuer;
}

interface HostedRun {
  log: EventLog;
  controller: AbortController;
  done: Promise<RunResult | undefined> | undefined;
  /** True once the run's result is in (its store record written): its log may end a little earlier, at run_finished. */
  settled: boolean;
}

/** Logs of finished runs kept for late readers of their stream; older ones are dropped first. */
const keptFinishedLogs = 500;

export class RunHost {
  readonly #runs = new Map<string, HostedRun>();
  readonly #finished: string[] = [];
  readonly #watchers = new Set<(runId: string) => void>();
  #accepting = true;

  constructor(private readonly startRun: RunStarter) {}

  get accepting(): boolean {
    return this.#accepting;
  }

  /** Starts the run and resolves with its id once it has one (its first event), or with the result when it ends before. */
  start(assembly: RunAssembly, input: RunInput): Promise<string> {
    return this.#host(assembly.deps, undefined, (options) => this.startRun(assembly, input, options));
  }

  /**
   * Continues a stopped run of the store here (an interrupted one, with people's decisions): it gets a fresh event log
   * that readers of its stream follow live, and a drain waits for it like for any run this server started.
   */
  continue(runId: string, continuation: RunContinuation): Promise<string> {
    // The run may still be settling here (its pause recorded, its result not yet in): it goes on after that.
    const previous = this.#runs.get(runId);
    const settling = previous !== undefined && !previous.settled ? previous.done : undefined;
    return this.#host(continuation.deps, runId, async (options) => {
      await settling;
      return continuation.resume(options);
    });
  }

  /**
   * Takes up a run whose owner is gone (recovery): hosted like any run here once its claim holds (its first event);
   * a claim another process won first rejects, and the run is not this server's.
   */
  recover(continuation: RunContinuation): Promise<string> {
    return this.#host(continuation.deps, undefined, continuation.resume);
  }

  #host(deps: Partial<Deps>, knownId: string | undefined, begin: RunContinuer): Promise<string> {
    const log = new EventLog();
    const controller = new AbortController();
    const given = deps.onEvent;
    // Made before the run starts: a run may report its first event synchronously.
    const hosted: HostedRun = { log, controller, done: undefined, settled: false };
    let announce: (runId: string) => void = () => {};
    let refuse: (error: unknown) => void = () => {};
    const runId = new Promise<string>((resolve, reject) => {
      announce = resolve;
      refuse = reject;
    });
    let known: string | undefined;
    const adopt = (id: string) => {
      known = id;
      this.#runs.set(id, hosted);
      announce(id);
      this.notify(id);
    };
    // A continued run's id is known at once: its new log replaces the ended one before the caller answers.
    if (knownId !== undefined) {
      // Live again: out of the finished list, whose oldest entries are dropped as others finish.
      const finished = this.#finished.indexOf(knownId);
      if (finished >= 0) this.#finished.splice(finished, 1);
      adopt(knownId);
    }
    const onEvent = (event: RunEvent) => {
      if (known === undefined) adopt(event.runId);
      log.push(event);
      given?.(event);
    };
    const done = begin({ deps: { ...deps, onEvent }, signal: controller.signal }).then(
      (result) => {
        if (known === undefined) {
          known = result.runId;
          this.#runs.set(known, hosted);
          announce(known);
        }
        return result;
      },
      // A run that throws (a store that failed at start) must not take the server down; its id was never given out.
      (error: unknown) => {
        refuse(error);
        return undefined;
      },
    );
    hosted.done = done;
    void done.finally(() => {
      hosted.settled = true;
      log.end();
      if (known !== undefined) {
        this.#retire(known, hosted);
        this.notify(known);
      }
    });
    return runId;
  }

  /** The result of a run this server started (undefined when it threw at start); undefined for a run it does not hold. */
  result(runId: string): Promise<RunResult | undefined> | undefined {
    return this.#runs.get(runId)?.done;
  }

  log(runId: string): EventLog | undefined {
    return this.#runs.get(runId)?.log;
  }

  isActive(runId: string): boolean {
    const hosted = this.#runs.get(runId);
    return hosted !== undefined && !hosted.settled;
  }

  cancel(runId: string, reason: string): boolean {
    if (!this.isActive(runId)) return false;
    this.#runs.get(runId)!.controller.abort(new Error(reason));
    return true;
  }

  /** Stops taking runs, asks every running one to stop (it reaches a checkpoint and is recorded as cancelled), waits for them. */
  async drain(reason: string): Promise<void> {
    this.#accepting = false;
    const running = [...this.#runs.values()].filter((hosted) => !hosted.settled);
    for (const hosted of running) hosted.controller.abort(new Error(reason));
    await Promise.all(running.map((hosted) => hosted.done));
  }

  /** Calls `listener` with a run's id when a run here starts or ends (or `notify` says so): the run list's feed. */
  watch(listener: (runId: string) => void): () => void {
    this.#watchers.add(listener);
    return () => void this.#watchers.delete(listener);
  }

  /** Tells the watchers that a run changed. */
  notify(runId: string): void {
    for (const listener of this.#watchers) {
      try {
        listener(runId);
      } catch {
        // A watcher's bug must not stop a run.
      }
    }
  }

  #retire(runId: string, hosted: HostedRun): void {
    // A run continued since has a new entry: the one that ended here is gone already.
    if (this.#runs.get(runId) !== hosted) return;
    this.#finished.push(runId);
    while (this.#finished.length > keptFinishedLogs) this.#runs.delete(this.#finished.shift()!);
  }
}
