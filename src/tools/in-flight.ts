// Tool calls in flight share one Node timer for their timeouts and one 'abort' listener per run signal, instead of
// a timer and a listener per call (together about 1 KB and a few hundred ns a call).
import { performance } from 'node:perf_hooks';

/** A call in flight. The calls waiting form a list linked through themselves, so watching one allocates nothing. */
export abstract class InFlightCall {
  previous: InFlightCall | undefined;
  next: InFlightCall | undefined;
  /** When the call times out, in performance.now() milliseconds. */
  abstract readonly deadline: number;
  abstract readonly runSignal: AbortSignal | undefined;
  /** Its timeout passed. */
  abstract expire(): void;
  /** Its run signal aborted. */
  abstract cancel(): void;
}

let first: InFlightCall | undefined;
let last: InFlightCall | undefined;
let count = 0;
const listenedSignals = new WeakSet<AbortSignal>();
let timer: ReturnType<typeof setTimeout> | undefined;
let timerAt = Infinity;

export function watch(call: InFlightCall): void {
  call.previous = last;
  call.next = undefined;
  if (last === undefined) first = call;
  else last.next = call;
  last = call;
  count++;
  if (call.deadline < timerAt) arm(call.deadline);
  // Only the first call in flight needs the timer to keep the process alive again (see unwatch).
  else if (count === 1) timer?.ref();
  const signal = call.runSignal;
  if (signal !== undefined && !listenedSignals.has(signal)) {
    listenedSignals.add(signal);
    signal.addEventListener('abort', cancelAll, { once: true });
  }
}

export function unwatch(call: InFlightCall): void {
  if (call.previous === undefined) first = call.next;
  else call.previous.next = call.next;
  if (call.next === undefined) last = call.previous;
  else call.next.previous = call.previous;
  call.previous = call.next = undefined;
  // The timer may still be set for a call that has finished: it must not keep the process alive.
  if (--count === 0) timer?.unref();
}

function arm(at: number): void {
  clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(expireDue, Math.max(1, Math.ceil(at - performance.now())));
}

function expireDue(): void {
  timer = undefined;
  timerAt = Infinity;
  const now = performance.now();
  const due: InFlightCall[] = [];
  let next = Infinity;
  for (let call = first; call !== undefined; call = call.next) {
    if (call.deadline <= now) due.push(call);
    else if (call.deadline < next) next = call.deadline;
  }
  if (next !== Infinity) arm(next);
  // Collected first: expiring a call runs its tool's abort listeners, which may settle other calls.
  for (const call of due) call.expire();
}

function cancelAll(event: Event): void {
  const calls: InFlightCall[] = [];
  for (let call = first; call !== undefined; call = call.next) if (call.runSignal === event.target) calls.push(call);
  for (const call of calls) call.cancel();
}
