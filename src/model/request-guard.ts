// Abort and silence handling around one SDK call: the caller's signal wins at once, and a body that stops arriving times out.
import { StageloopError } from '../common/stageloop-error.js';

/** What a guarded wait rejects with when its signal aborts (no SDK import, so the SDK can load lazily). */
export class RequestAborted extends StageloopError {
  constructor() {
    super('model', 'the request was aborted');
    this.name = 'RequestAborted';
  }
}

/** Settles as soon as the signal aborts, even while the SDK sleeps between retries (it does not watch the signal then). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RequestAborted());
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}

/**
 * An AbortController linked to the caller's signal, plus a silence timer. The SDK's timeout stops at the response
 * headers; the timer covers the body (a JSON body, or the gaps between streamed chunks).
 */
export class RequestGuard {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;
  private readonly forwardAbort = () => this.controller.abort();

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    private readonly silenceMs: number,
  ) {
    if (callerSignal?.aborted) this.controller.abort();
    else callerSignal?.addEventListener('abort', this.forwardAbort, { once: true });
  }

  /** The signal to hand to the SDK: fires on the caller's abort and on silence. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True when the silence timer, not the caller, stopped the request. */
  get silent(): boolean {
    return this.timedOut && !this.callerSignal?.aborted;
  }

  /** Call whenever data arrives. */
  restartSilenceTimer(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.silenceMs);
  }

  wait<T>(promise: Promise<T>): Promise<T> {
    return raceAbort(promise, this.controller.signal);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.forwardAbort);
  }
}
