// LazyAbort: an abort controller whose AbortSignal is made on first read. Node 20 takes microseconds to make
// one, and most runs, finalize zones and tool calls are never cancelled nor hand their signal to anything.

export class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  /** The signal; read after an abort it comes already aborted, with the same reason. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** Like AbortController.abort: the first call wins; no reason means an AbortError. */
  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.#controller?.abort(this.#reason);
  }
}
