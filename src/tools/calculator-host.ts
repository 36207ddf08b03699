// CalculatorWorkerHost: owns one long-lived calculator child process, runs jobs one at a time, kills and replaces it on overrun.
//
// A child process rather than a worker thread: V8 aborts the *whole* process when a worker with resourceLimits grows
// one huge array (`range(1, 3e7)` does; nodejs/node#47224), while a child's out-of-memory ends only the child.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ToolFailure } from './tool-failure.js';

export interface CalculatorHostOptions {
  /** Kill timer per evaluation, from the moment the job reaches a ready worker (mathjs loading is not counted). */
  evaluationTimeoutMs: number;
  /** V8 old-generation limit of the worker process. */
  memoryLimitMb: number;
  maxNodes: number;
  maxResultChars: number;
}

/** The limits calculatorTool() uses unless told otherwise. */
export const defaultCalculatorLimits: Readonly<CalculatorHostOptions> = Object.freeze({
  evaluationTimeoutMs: 2_000,
  memoryLimitMb: 128,
  maxNodes: 300,
  maxResultChars: 4_000,
});

interface Job {
  id: number;
  expression: string;
  /** Sent to the worker: from then on only killing the worker stops it. */
  posted: boolean;
  resolve(value: string): void;
  reject(error: unknown): void;
  cleanup(): void;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'load-error'; message: string }
  | { type: 'result'; id: number; ok: true; value: string }
  | { type: 'result'; id: number; ok: false; message: string };

interface LiveWorker {
  child: ChildProcess;
  ready: Promise<void>;
}

const WORKER_PATH = fileURLToPath(new URL('./calculator-worker.js', import.meta.url));

export class CalculatorWorkerHost {
  readonly #options: CalculatorHostOptions;
  readonly #queue: Job[] = [];
  #live: LiveWorker | undefined;
  #current: Job | undefined;
  #killTimer: NodeJS.Timeout | undefined;
  #nextId = 1;

  constructor(options: CalculatorHostOptions) {
    this.#options = Object.freeze({ ...options });
  }

  /** The limits this host enforces on every evaluation. */
  get limits(): Readonly<CalculatorHostOptions> {
    return this.#options;
  }

  /** The pid of the worker process that serves the next job, if one is started: a killed worker's replacement shows here at once. */
  get workerProcessId(): number | undefined {
    return this.#live?.child.pid;
  }

  /** Whether a calculation is in the worker right now (sent to it, not yet answered): what an abort or close interrupts. */
  get evaluating(): boolean {
    return this.#current?.posted === true;
  }

  /** Resolves the formatted result; rejects with ToolFailure (math error, timeout, out of memory) or the signal's reason. */
  evaluate(expression: string, signal: AbortSignal): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => {
        const queued = this.#queue.indexOf(job);
        if (queued >= 0) this.#queue.splice(queued, 1);
        // A running evaluation cannot be interrupted inside the worker: the worker goes with it.
        if (this.#current === job && job.posted) this.#replaceWorker(true);
        this.#settle(job, () => reject(signal.reason));
      };
      const job: Job = {
        id: this.#nextId++,
        expression,
        posted: false,
        resolve,
        reject,
        cleanup: () => signal.removeEventListener('abort', onAbort),
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(job);
      void this.#pump();
    });
  }

  /** Starts the worker and waits until mathjs is loaded, so the first calculation does not pay for it. */
  async warm(): Promise<void> {
    const live = this.#live ?? this.#spawn();
    setReferenced(live.child, true);
    try {
      await live.ready;
    } finally {
      if (!this.#current && this.#live === live) setReferenced(live.child, false);
    }
  }

  /** Stops the worker, failing what is queued or running; a later evaluation starts a new one. */
  close(): Promise<void> {
    const child = this.#live?.child;
    this.#replaceWorker(false);
    const pending = [...(this.#current ? [this.#current] : []), ...this.#queue.splice(0)];
    for (const job of pending) this.#settle(job, () => job.reject(new ToolFailure('The calculator was closed.')));
    // Resolves once the process is gone, so a CLI that exits next leaves nothing behind.
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    child.ref(); // an idle worker is unreferenced: without this the process could end before the exit arrives
    return new Promise((resolve) => child.once('exit', () => resolve()));
  }

  async #pump(): Promise<void> {
    if (this.#current || this.#queue.length === 0) return;
    const job = this.#queue.shift() as Job;
    this.#current = job;
    const live = this.#live ?? this.#spawn();
    // While a job is in flight the worker keeps the process alive, so a top-level await gets its answer.
    setReferenced(live.child, true);
    try {
      await live.ready;
    } catch (error) {
      // A worker that failed to load is dropped, so the next call tries a fresh one.
      if (this.#live === live) this.#replaceWorker(false);
      this.#settle(job, () => job.reject(error));
      return;
    }
    if (this.#current !== job) return; // settled while the worker loaded (aborted, closed)
    if (this.#live !== live) {
      // Its worker was replaced meanwhile: start over on the new one rather than leave the job stranded.
      this.#current = undefined;
      this.#queue.unshift(job);
      return void this.#pump();
    }
    this.#killTimer = setTimeout(() => {
      this.#replaceWorker(true);
      const seconds = this.#options.evaluationTimeoutMs / 1000;
      this.#settle(job, () =>
        job.reject(
          new ToolFailure(
            `The calculation took longer than ${seconds} s and was stopped. Use smaller numbers or fewer steps.`,
            { kind: 'timeout', retryable: false },
          ),
        ),
      );
    }, this.#options.evaluationTimeoutMs);
    job.posted = true;
    live.child.send({
      id: job.id,
      expression: job.expression,
      maxNodes: this.#options.maxNodes,
      maxResultChars: this.#options.maxResultChars,
    });
  }

  #spawn(): LiveWorker {
    // execArgv and env are set, not inherited: no loaders, no NODE_OPTIONS, and no API keys in the worker.
    const child = fork(WORKER_PATH, [], {
      execArgv: [`--max-old-space-size=${this.#options.memoryLimitMb}`],
      env: {},
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'json',
    });
    setReferenced(child, false);
    let markReady: () => void = () => {};
    let failLoad: (error: Error) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failLoad = reject;
    });
    ready.catch(() => {}); // observed in #pump; this keeps an early failure from counting as unhandled
    const live: LiveWorker = { child, ready };
    let wasReady = false;
    void ready.then(
      () => (wasReady = true),
      () => {},
    );
    child.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') return markReady();
      if (message.type === 'load-error')
        return failLoad(new ToolFailure(`The calculator could not load mathjs: ${message.message}`));
      const job = this.#current;
      if (!job || job.id !== message.id || this.#live !== live) return;
      if (message.ok) this.#settle(job, () => job.resolve(message.value));
      else this.#settle(job, () => job.reject(new ToolFailure(message.message)));
    });
    const onDeath = (reason: string) => {
      failLoad(new ToolFailure(`The calculator worker stopped before it was ready: ${reason}`));
      if (this.#live !== live) return; // killed on purpose: its job was already settled
      this.#live = undefined;
      const job = this.#current;
      if (job) this.#settle(job, () => job.reject(new ToolFailure(reason)));
      // Replace a worker that had been working (out of memory); one that never loaded is not retried in a loop.
      if (wasReady && !this.#live) this.#spawn();
    };
    child.on('error', (error) => onDeath(`The calculator worker failed: ${error.message}`));
    child.on('exit', (code, signal) => {
      // V8 aborts (SIGABRT, or exit code 134) when the heap limit is reached.
      const outOfMemory = signal === 'SIGABRT' || code === 134;
      onDeath(
        outOfMemory
          ? `The calculation needed more than ${this.#options.memoryLimitMb} MB of memory and was stopped. Use smaller matrices or ranges.`
          : `The calculator worker exited (${signal ?? `code ${code}`}).`,
      );
    });
    this.#live = live;
    return live;
  }

  /** Kills the current worker. With `warmReplacement` a new one starts loading now, so the next call does not wait for mathjs. */
  #replaceWorker(warmReplacement: boolean): void {
    const live = this.#live;
    this.#live = undefined;
    if (live) live.child.kill('SIGKILL');
    if (warmReplacement) this.#spawn();
  }

  #settle(job: Job, action: () => void): void {
    job.cleanup();
    if (this.#current === job) {
      this.#current = undefined;
      clearTimeout(this.#killTimer);
      if (this.#live) setReferenced(this.#live.child, false);
    }
    action();
    void this.#pump();
  }
}

/** An idle worker must never keep the process alive; both the process handle and its IPC channel count. */
function setReferenced(child: ChildProcess, referenced: boolean): void {
  if (referenced) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}
