// A child run's share of its caller's token budget: the child's model counts what it spends, and once the share is
// spent the child run is stopped (status `stopped`, kind `budget_tokens`) through its signal, as a deadline would.
import { DeadlineReached } from '../engine/run-abort.js';
import type { ChatModel, ChatRequest, ChatResponse, ChatStreamEvent } from '../model/types.js';

export class TokenAllowance {
  spent = 0;

  constructor(
    readonly limit: number,
    private readonly controller: AbortController,
    private readonly agent: string,
  ) {}

  /** Counts a reply; stops the run once the share is spent (the reply itself is kept: its tokens are spent). */
  charge(response: ChatResponse): void {
    this.spent += response.usage.inputTokens + response.usage.outputTokens;
    if (this.spent >= this.limit) this.stop();
  }

  /** Before a call: a spent share makes none. */
  check(): void {
    if (this.spent >= this.limit) this.stop();
    if (this.controller.signal.aborted) throw this.controller.signal.reason;
  }

  private stop(): void {
    if (this.controller.signal.aborted) return;
    const message = `agent "${this.agent}" spent ${this.spent} tokens, its share of the calling run's token budget (${this.limit})`;
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
    charged.chatStream = async (request: ChatRequest, onEvent: (event: ChatStreamEvent) => void, signal?: AbortSignal) => {
      allowance.check();
      const response = await stream.call(model, request, onEvent, signal);
      allowance.charge(response);
      return response;
    };
  }
  return charged;
}
