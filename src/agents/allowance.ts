// A child run's share of its caller's token budget: the child's model counts what it spends, and once the share is
// spent the child run is stopped (status `stopped`, kind `budget_tokens`) through its signal, as a deadline would.
// Children running at once draw on one pool (the first one's share of what was left), so together they stay inside it.
import { DeadlineReached } from '../engine/run-abort.js';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent } from '../model/types.js';

/** What the children of one calling run spend while they run at once. */
export interface TokenPool {
  readonly limit: number;
  spent: number;
  active: number;
}

export class TokenAllowance {
  constructor(
    private readonly pool: TokenPool,
    private readonly controller: AbortController,
    private readonly agent: string,
  ) {}

  get limit(): number {
    return this.pool.limit;
  }

  /** Counts a reply; stops the run once the pool is spent (the reply itself is kept: its tokens are spent). */
  charge(response: ChatResponse): void {
    this.pool.spent += response.usage.inputTokens + response.usage.outputTokens;
    if (this.pool.spent >= this.pool.limit) this.stop();
  }

  /** Before a call: a spent pool makes none, whichever child spent it. */
  check(): void {
    if (this.pool.spent >= this.pool.limit) this.stop();
    if (this.controller.signal.aborted) throw this.controller.signal.reason;
  }

  private stop(): void {
    if (this.controller.signal.aborted) return;
    const message = `agent "${this.agent}" stopped at ${this.pool.spent} tokens spent by the calling run's agents, their share of its token budget (${this.pool.limit})`;
    this.controller.abort(new DeadlineReached('budget', 'budget_tokens', message));
  }
}

/** The child's model, charged to the allowance. */
export function chargedModel(model: ChatModel, allowance: TokenAllowance): ChatModel {
  const charged: ChatModel = {
    provider: model.provider,
    modelName: model.modelName,
    ...(model.endpoint !== undefined && { endpoint: model.endpoint }),
    async chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
      allowance.check();
      const response = await model.chat(request, signal);
      allowance.charge(response);
      return response;
    },
  };
  const stream = model.chatStream;
  if (stream !== undefined) {
    charged.chatStream = async (
      request: ChatRequest,
      onEvent: (event: ChatStreamEvent) => void,
      signal?: AbortSignal,
    ) => {
      allowance.check();
      const response = await stream.call(model, request, onEvent, signal);
      allowance.charge(response);
      return response;
    };
  }
  return charged;
}
