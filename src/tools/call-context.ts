// The context a tool call sees (ToolContext): its signal, made on first read, and the usage and agent answer the
// tool reports. Its own file: the executor only creates one per call and reads it back.
import { emptyUsage, type ChatUsage } from '../model/types.js';
import type { ToolContext } from './define-tool.js';
import type { LazyAbort } from '../common/lazy-abort.js';
import type { AgentAnswer } from '../engine/tool-port.js';
import type { AgentUsage } from '../engine/run-result.js';

/** What a tool sees: its signal, made on first read (most tools never read it). */
export class CallContext implements ToolContext {
  declare readonly signal: AbortSignal;
  readonly #abort: LazyAbort;
  #usage: ChatUsage | undefined = undefined;
  #agent: AgentAnswer | undefined = undefined;
  agentUsage: AgentUsage | undefined = undefined;

  constructor(
    abort: LazyAbort,
    readonly callId: string,
  ) {
    this.#abort = abort;
    Object.defineProperty(this, 'signal', CallContext.#signalProperty);
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

  reportAgentUsage(node: AgentUsage): void {
    this.agentUsage = node;
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
}
