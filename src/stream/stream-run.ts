// streamRun(): a run whose events, and its final answer's text, can be read with for await as they happen.
import { runPipeline, type DurableRunOptions } from '../durable/durable-run.js';
import type { Pipeline } from '../engine/pipeline.js';
import type { RunResult } from '../engine/run-result.js';
import type { RunEvent } from '../engine/stage.js';
import type { RunInput } from '../engine/state.js';
import { EventLog } from './event-log.js';
import { streamPartsReader } from './full-stream.js';
import type { StreamPart } from './stream-parts.js';

export interface RunStream extends AsyncIterable<RunEvent> {
  /**
   * The answer's text as the model writes it: every piece of every model call that may give the answer. Text a reply
   * writes before a tool call is in it too (a string cannot be taken back): fullStream's `reset-step` retracts it.
   */
  readonly textStream: AsyncIterable<string>;
  /** The run as typed parts for a UI (docs/streaming.md): text, reasoning, tool input and results, steps, finish. */
  readonly fullStream: AsyncIterable<StreamPart>;
  /** The run's result, as runPipeline gives it. */
  readonly result: Promise<RunResult>;
  /** The events so far, in order: `events[n - 1].seq === n`. */
  readonly events: readonly RunEvent[];
  /** Every event whose seq is above `seq` (a reader that reconnects after the last one it saw), ending after run_finished. */
  eventsAfter(seq: number, options?: { cancelOnBreak?: boolean }): AsyncIterable<RunEvent>;
  /** Cancels the run: the stage in flight is aborted, finalize still runs, the run ends `cancelled`. */
  cancel(reason?: string): void;
}

/**
 * Starts the run at once and returns its stream. The run never waits for a reader: every event is kept until the
 * stream object is dropped, so a slow reader loses none and a reader that never reads costs the memory of the events.
 * Breaking out of a `for await` over the stream or its textStream cancels the run.
 */
export function streamRun(pipeline: Pipeline, input: RunInput, options: DurableRunOptions = {}): RunStream {
  const log = new EventLog();
  const controller = new AbortController();
  const callerSignal = options.signal;
  const signal = callerSignal === undefined ? controller.signal : AbortSignal.any([callerSignal, controller.signal]);
  const listener = options.deps?.onEvent;
  const onEvent = (event: RunEvent): void => {
    log.push(event);
    listener?.(event);
  };
  const result = runPipeline(pipeline, input, { ...options, signal, deps: { ...options.deps, onEvent } });
  result.then(
    () => log.end(),
    (error: unknown) => log.end({ error }),
  );
  const cancel = (reason = 'the run was cancelled through its stream'): void => {
    if (!log.done) controller.abort(new Error(reason));
  };
  // One generator per reader over the one log: a reader that leaves before the end cancels the run when asked to.
  const read = async function* <Item>(
    after: number,
    cancelOnBreak: boolean,
    pick: (event: RunEvent) => Item | undefined,
  ): AsyncGenerator<Item, void, undefined> {
    let finished = false;
    try {
      for await (const event of log.read(after)) {
        const item = pick(event);
        if (item !== undefined) yield item;
      }
      finished = true;
    } finally {
      // A reader that leaves before the end (break, return, throw in its loop body) cancels the run.
      if (!finished && cancelOnBreak) cancel('the stream reader stopped reading');
    }
    log.throwIfFailed();
  };
  const everyEvent = (event: RunEvent) => event;
  const textOf = (): ((event: RunEvent) => string | undefined) => {
    const partsOf = streamPartsReader();
    return (event) => {
      const texts = partsOf(event).flatMap((part) => (part.type === 'text-delta' ? [part.text] : []));
      return texts.length === 0 ? undefined : texts.join('');
    };
  };
  // Parts come several to an event: read them as one array per event, given one by one.
  const partsStream: AsyncIterable<StreamPart> = {
    async *[Symbol.asyncIterator]() {
      for await (const parts of { [Symbol.asyncIterator]: () => read(0, true, streamPartsReader()) }) yield* parts;
    },
  };
  return {
    [Symbol.asyncIterator]: () => read(0, true, everyEvent),
    textStream: { [Symbol.asyncIterator]: () => read(0, true, textOf()) },
    fullStream: partsStream,
    result,
    events: log.events,
    eventsAfter: (seq, eventsOptions = {}) => ({
      [Symbol.asyncIterator]: () => read(seq, eventsOptions.cancelOnBreak ?? true, everyEvent),
    }),
    cancel,
  };
}
