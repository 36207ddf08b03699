// A ChatModel that plays a fixed script: for users' tests and ours. Fails loudly when the run goes off script.
import { emptyUsage, type ChatModel, type ChatRequest, type ChatResponse, type ToolCall } from './types.js';

/** What one scripted step may give: a partial response, a function of the request, or an Error to throw. */
export type ScriptedStep =
  ScriptedReply | ((request: ChatRequest, callIndex: number) => ScriptedReply | Promise<ScriptedReply>) | Error;

export type ScriptedReply = Partial<Omit<ChatResponse, 'toolCalls'>> & {
  toolCalls?: Array<Omit<ToolCall, 'id'> & { id?: string }>;
};

export class ScriptedModel implements ChatModel {
  readonly provider = 'scripted';
  readonly modelName: string;
  /** Every request received, in order. */
  readonly requests: ChatRequest[] = [];
  private readonly steps: ScriptedStep[];

  constructor(steps: ScriptedStep[], options: { modelName?: string } = {}) {
    this.steps = [...steps];
    this.modelName = options.modelName ?? 'scripted-model';
  }

  async chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const callIndex = this.requests.length;
    this.requests.push(recordOf(request));
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    if (callIndex >= this.steps.length) {
      throw new Error(
        `ScriptedModel: unexpected call #${callIndex + 1} (purpose "${request.purpose}"): the script has only ${this.steps.length} step(s)`,
      );
    }
    const step = this.steps[callIndex]!;
    if (step instanceof Error) throw step;
    const reply = typeof step === 'function' ? await step(request, callIndex) : step;
    const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
      id: call.id ?? `call_${callIndex + 1}_${index + 1}`,
      name: call.name,
      arguments: call.arguments,
    }));
    const response: ChatResponse = {
      content: reply.content ?? '',
      toolCalls,
      finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      usage: reply.usage ?? emptyUsage(),
      model: reply.model ?? this.modelName,
      latencyMs: reply.latencyMs ?? 0,
    };
    if (reply.parsed !== undefined) response.parsed = reply.parsed;
    if (reply.reasoning !== undefined) response.reasoning = reply.reasoning;
    if (reply.replay !== undefined) response.replay = reply.replay;
    return response;
  }

  /** Number of steps not yet used. */
  get remaining(): number {
    return Math.max(0, this.steps.length - this.requests.length);
  }

  /** Throws when steps are left over: the run made fewer model calls than scripted. */
  assertConsumed(): void {
    if (this.remaining > 0) {
      throw new Error(`ScriptedModel: ${this.remaining} of ${this.steps.length} scripted step(s) were never used`);
    }
  }
}

/** A deep copy of the request; a zod schema in responseFormat cannot be cloned and is immutable, so it is shared. */
function recordOf(request: ChatRequest): ChatRequest {
  const { responseFormat, ...rest } = request;
  const copy: ChatRequest = structuredClone(rest);
  if (responseFormat !== undefined) copy.responseFormat = { name: responseFormat.name, schema: responseFormat.schema };
  return copy;
}
