// The context a tool call sees (ToolContext): its signal, made on first read, and the usage and agent answer the
// tool reports. Its own file: the executor only creates one per call and reads it back.
import { emptyUsage, type ChatUsage } from '../model/types.js';
import type { ToolContext } from './define-tool.js';
import type { LazyAbort } from '../common/lazy-abort.js';
import type { AgentAnswer } from '../engine/tool-port.js';
import type { AgentUsage } from '../engine/run-result.js';
import { createHash, randomUUID } from 'node:crypto';

/** The run a call is made for: its idempotency key is made from it. */
export interface CallRun {
  readonly runId: string;
  readonly iteration: number;
}

/**
 * The key of one call, the same at every attempt (a resume, a replay, a re-run after a crash): a hash of the run's id,
 * the iteration and the call's id (a model may reuse a call id from one turn to the next). Without a run (a registry
 * called directly) there is nothing to resume, and the key is unique to this attempt.
 */
export function idempotencyKeyOf(run: CallRun | undefined, callId: string): string {
  if (run === undefined) return `sl_${randomUUID().replaceAll('-', '')}`;
  const digest = createHash('sha256').update(`${run.runId}\n${run.iteration}\n${callId}`).digest('base64url');
  return `sl_${digest.slice(0, 32)}`;
}

/** What a tool sees: its signal, made on first read (most tools never read it). */
export class CallContext implements ToolContext {
  declare readonly signal: AbortSignal;
  declare readonly idempotencyKey: string;
  readonly #abort: LazyAbort;
  readonly #run: CallRun | undefined;
  #key: string | undefined = undefined;
  #usage: ChatUsage | undefined = undefined;
  #agent: AgentAnswer | undefined = undefined;
  #agentUsage: AgentUsage | undefined = undefined;

  constructor(
    abort: LazyAbort,
    readonly callId: string,
    run?: CallRun,
  ) {
    this.#abort = abort;
    this.#run = run;
    Object.defineProperty(this, 'signal', CallContext.#signalProperty);
    Object.defineProperty(this, 'idempotencyKey', CallContext.#keyProperty);
  }

  get usage(): ChatUsage | undefined {
    return this.#usage;
  }

  get agent(): AgentAnswer | undefined {
    return this.#agent;
  }

  reportAgent(answer: AgentAnswer): void {
    this.#agent = answer;
  }

  /** The agent run the call made (read back by the executor; private so a spread context carries only its own keys). */
  get agentUsage(): AgentUsage | undefined {
    return this.#agentUsage;
  }

  reportAgentUsage(node: AgentUsage): void {
    this.#agentUsage = node;
  }

  reportUsage(usage: ChatUsage): void {
    const total = (this.#usage ??= emptyUsage());
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    total.cachedInputTokens += usage.cachedInputTokens;
    total.reasoningTokens += usage.reasoningTokens;
    if (usage.cacheWriteInputTokens)
      total.cacheWriteInputTokens = (total.cacheWriteInputTokens ?? 0) + usage.cacheWriteInputTokens;
    if (usage.estimated) total.estimated = true;
  }

  /** An own, enumerable accessor, so `{ ...ctx }` keeps the signal as with a plain object; one shared getter keeps one hidden class. */
  static readonly #signalProperty: PropertyDescriptor = {
    enumerable: true,
    get(this: CallContext) {
      return this.#abort.signal;
    },
  };

  /** The key, made on first read (a hash most tools never need). */
  static readonly #keyProperty: PropertyDescriptor = {
    enumerable: true,
    get(this: CallContext) {
      return (this.#key ??= idempotencyKeyOf(this.#run, this.callId));
    },
  };
}
