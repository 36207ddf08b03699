// A tool's execution policy, the registry's part beside its timeouts: a call that fails with an error the tool marks
// retryable is run again after a backoff (the same call, so the same idempotency key), and a rate limit spaces the
// starts of a tool's calls. Both wait on an injected timer, so a test moves time instead of sleeping. The attempts a
// call spent ride on its one result: the journal records that result once, and a replay serves it without running
// any attempt again.
import { StageloopError } from '../common/stageloop-error.js';
import type { ToolResult, ToolRetryRecord } from '../engine/tool-port.js';

/** Run a failed call again: `attempts` in all (the first included), waiting `backoff` before each new one. */
export interface ToolRetry {
  /** Attempts in all, the first included: 2 or more. */
  attempts: number;
  /**
   * Milliseconds before the second attempt (default 500); a number waits the same before each, an object grows
   * the wait by `factor` (default 2) per attempt, up to `maxMs` (default 30,000).
   */
  backoff?: number | { initialMs: number; factor?: number; maxMs?: number };
}

/** At most `perMinute` calls of the tool start in any 60 seconds; a call over it waits for its turn, in order. */
export interface ToolRateLimit {
  perMinute: number;
}

/** What the policy waits on: the system's time by default; a test gives one it moves itself. */
export interface ToolTimer {
  /** Milliseconds, any origin. */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemTimer: ToolTimer = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

const WINDOW_MS = 60_000;

/** Starts of one tool's calls in the last minute, kept per Tool object: every registry holding it shares them. */
export class RateWindow {
  /** Start times given out, oldest first (some may lie ahead: calls waiting their turn). */
  readonly #starts: number[] = [];

  /** Reserves the next start for a call made now; returns how long it waits for it (0: it starts at once). */
  reserve(perMinute: number, now: number): number {
    const starts = this.#starts;
    while (starts.length > 0 && starts[0]! <= now - WINDOW_MS) starts.shift();
    // The oldest of the last `perMinute` starts must be a minute old before this one may start.
    const start = starts.length < perMinute ? now : Math.max(now, starts[starts.length - perMinute]! + WINDOW_MS);
    starts.push(start);
    return start - now;
  }
}

/** Only these kinds are tried again: a refusal, a pause or an agent's stop is an answer, not a hiccup. */
const retriedKinds = new Set(['failed', 'timeout']);

export function shouldRetry(result: ToolResult): boolean {
  return !result.ok && result.error.retryable && retriedKinds.has(result.error.kind);
}

/** The wait before attempt `attempt + 1` (attempt counts from 1). */
export function backoffMs(retry: ToolRetry, attempt: number): number {
  const backoff = retry.backoff ?? { initialMs: 500 };
  if (typeof backoff === 'number') return backoff;
  const grown = backoff.initialMs * (backoff.factor ?? 2) ** (attempt - 1);
  return Math.min(grown, backoff.maxMs ?? 30_000);
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the attempts are spent. The result is the last attempt's,
 * with the failed ones before it in `retries`, and a failure says how many attempts it took.
 */
export async function withRetries(
  retry: ToolRetry,
  timer: ToolTimer,
  signal: AbortSignal | undefined,
  attempt: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const retries: ToolRetryRecord[] = [];
  let spent = 0;
  for (let number = 1; ; number++) {
    const result = await attempt();
    if (result.ok || number >= retry.attempts || !shouldRetry(result) || signal?.aborted === true) {
      return retries.length === 0 ? result : finished(result, retries, number, spent);
    }
    const waitMs = backoffMs(retry, number);
    retries.push({ attempt: number, error: { kind: result.error.kind, message: result.error.message }, waitMs });
    spent += result.durationMs + waitMs;
    await timer.sleep(waitMs, signal);
  }
}

function finished(result: ToolResult, retries: ToolRetryRecord[], attempts: number, spent: number): ToolResult {
  const durationMs = spent + result.durationMs;
  if (result.ok) return { ...result, durationMs, retries };
  const message = `${result.error.message} (tried ${attempts} times)`;
  return { ...result, error: { ...result.error, message }, durationMs, retries };
}

/** Throws a `tool` StageloopError naming the tool and the bad field. */
export function checkPolicy(name: string, retry: ToolRetry | undefined, rateLimit: ToolRateLimit | undefined): void {
  const fail = (problem: string): never => {
    throw new StageloopError('tool', `Tool "${name}": ${problem}`);
  };
  if (retry !== undefined) {
    if (!(Number.isInteger(retry.attempts) && retry.attempts >= 2))
      fail(`retry.attempts must be a whole number of at least 2 (the first attempt included), got ${retry.attempts}`);
    const backoff = retry.backoff;
    const delays = typeof backoff === 'object' ? [backoff.initialMs, backoff.maxMs ?? 0] : [backoff ?? 0];
    if (!delays.every((ms) => Number.isFinite(ms) && ms >= 0))
      fail('retry.backoff must be milliseconds, 0 or more (a number, or { initialMs, factor?, maxMs? })');
    if (typeof backoff === 'object' && !((backoff.factor ?? 2) >= 1)) fail('retry.backoff.factor must be 1 or more');
  }
  if (rateLimit !== undefined && !(Number.isInteger(rateLimit.perMinute) && rateLimit.perMinute >= 1)) {
    fail(`rateLimit.perMinute must be a whole number of at least 1, got ${rateLimit.perMinute}`);
  }
}

/** One tool's policy as its registry applies it. */
export interface CallPolicy {
  readonly retry: ToolRetry | undefined;
  readonly rateLimit: ToolRateLimit | undefined;
  readonly window: RateWindow;
  readonly timer: ToolTimer;
}

/** What the policy reads of a tool (define-tool.ts's Tool, which imports this file). */
interface PolicedTool {
  readonly name: string;
  readonly retry?: ToolRetry;
  readonly rateLimit?: ToolRateLimit;
}

/** Shared by every registry holding the same tool: the run's, its agents' (made from the same tools), other runs'. */
const windows = new WeakMap<PolicedTool, RateWindow>();

/** The policies of the tools that have one; the registry's per-name settings win over the tool's own. */
export function policiesFor(tools: readonly PolicedTool[], options: PolicyOptions): Map<string, CallPolicy> {
  const policies = new Map<string, CallPolicy>();
  for (const tool of tools) {
    const retry = options.retries?.[tool.name] ?? tool.retry;
    const rateLimit = options.rateLimits?.[tool.name] ?? tool.rateLimit;
    if (retry === undefined && rateLimit === undefined) continue;
    let window = windows.get(tool);
    if (window === undefined) windows.set(tool, (window = new RateWindow()));
    policies.set(tool.name, { retry, rateLimit, window, timer: options.timer ?? systemTimer });
  }
  return policies;
}

interface PolicyOptions {
  retries?: Readonly<Record<string, ToolRetry>>;
  rateLimits?: Readonly<Record<string, ToolRateLimit>>;
  timer?: ToolTimer;
}

/** One call under its tool's policy: each attempt waits its turn under the rate limit, and failures are retried. */
export function policed(
  policy: CallPolicy,
  signal: AbortSignal | undefined,
  once: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const limit = policy.rateLimit;
  const attempt = limit === undefined ? once : () => inTurn(policy, limit, signal, once);
  return policy.retry === undefined ? attempt() : withRetries(policy.retry, policy.timer, signal, attempt);
}

async function inTurn(
  policy: CallPolicy,
  limit: ToolRateLimit,
  signal: AbortSignal | undefined,
  once: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const waitMs = policy.window.reserve(limit.perMinute, policy.timer.now());
  // A run cancelled while the call waited: the executor sees the aborted signal and does not start it.
  if (waitMs > 0) await policy.timer.sleep(waitMs, signal);
  return once();
}
