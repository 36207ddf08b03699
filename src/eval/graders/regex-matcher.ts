// Regex graders match in a worker thread under a time limit. A pattern like ^(a+)+$ backtracks for ages on some
// answers; on the main thread the match would block the eval (its timers, its Ctrl-C) until it ended. Checking
// patterns for catastrophic backtracking at load is a guess (it misses (a|aa)+$ and refuses safe patterns); a
// worker can be stopped mid-match (terminate() interrupts V8's regex engine), so every pattern is allowed and none hangs.
import { Worker } from 'node:worker_threads';

// CommonJS in an eval'd worker: no file to ship or bundle next to the command.
const matcherSource = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, source, flags, text }) => {
  parentPort.postMessage({ id, matched: new RegExp(source, flags).test(text) });
});`;

/** What a match gives: whether the text matched, or that it took longer than the limit (the worker was stopped). */
export type MatchOutcome = 'matched' | 'unmatched' | 'timed_out';

interface MatchJob {
  id: number;
  source: string;
  flags: string;
  text: string;
  limitMs: number;
  signal: AbortSignal | undefined;
  settle(outcome: MatchOutcome | Error): void;
}

/** One worker, one match at a time, so a slow match never eats the time of the ones queued behind it. */
class RegexMatcher {
  #worker: Worker | undefined;
  #online: Promise<void> | undefined;
  readonly #queue: MatchJob[] = [];
  #current: MatchJob | undefined;
  #nextId = 1;

  match(expression: RegExp, text: string, limitMs: number, signal?: AbortSignal): Promise<MatchOutcome> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const job: MatchJob = {
        id: this.#nextId++,
        source: expression.source,
        // A global or sticky expression would start from its lastIndex: each answer is matched from its start.
        flags: expression.flags.replace(/[gy]/g, ''),
        text,
        limitMs,
        signal,
        settle: (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)),
      };
      this.#queue.push(job);
      void this.#pump();
    });
  }

  async #pump(): Promise<void> {
    if (this.#current !== undefined) return;
    const job = this.#queue.shift();
    if (job === undefined) return void this.#worker?.unref();
    this.#current = job;
    const worker = this.#live();
    worker.ref();
    // The limit counts the match, not the worker's start (slow on a loaded machine).
    await this.#online;
    if (this.#current !== job) return; // the worker failed to start: the job is settled already
    if (job.signal?.aborted) return this.#finish(job, job.signal.reason as Error, false);
    const timer = setTimeout(() => this.#finish(job, 'timed_out', true), job.limitMs);
    const onAbort = () => this.#finish(job, job.signal!.reason as Error, true);
    job.signal?.addEventListener('abort', onAbort, { once: true });
    const onMessage = (message: { id: number; matched: boolean }) => {
      if (message.id === job.id) this.#finish(job, message.matched ? 'matched' : 'unmatched', false);
    };
    worker.on('message', onMessage);
    job.settle = ((settle) => (outcome: MatchOutcome | Error) => {
      clearTimeout(timer);
      job.signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage);
      settle(outcome);
    })(job.settle);
    worker.postMessage({ id: job.id, source: job.source, flags: job.flags, text: job.text });
  }

  #finish(job: MatchJob, outcome: MatchOutcome | Error, stopWorker: boolean): void {
    if (this.#current !== job) return;
    this.#current = undefined;
    if (stopWorker) {
      void this.#worker?.terminate();
      this.#worker = undefined;
    }
    job.settle(outcome);
    void this.#pump();
  }

  #live(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(matcherSource, { eval: true });
    this.#online = new Promise((resolve) => {
      worker.once('online', () => resolve());
      worker.once('exit', () => resolve());
    });
    // A worker that dies (out of memory) fails the match in flight rather than leaving it waiting.
    worker.on('error', (error) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      if (this.#current) this.#finish(this.#current, error, false);
    });
    this.#worker = worker;
    return worker;
  }
}

/** The process's one matcher (a worker starts at the first match and is stopped when a match overruns). */
export const regexMatcher = new RegexMatcher();
