// Our ChatRequest to Responses API parameters and a Response back. Nothing is stored on OpenAI's side (`store: false`):
// reasoning items come back with their encrypted content and are sent again verbatim on the next request.
import { createHash } from 'node:crypto';
import type {
  Response,
  ResponseCreateParamsBase,
  ResponseInputItem,
  Tool,
  ToolChoiceOptions,
  ToolChoiceFunction,
} from 'openai/resources/responses/responses';
import type { JsonValue } from '../common/json.js';
import { argumentsText, finishWith, type Reply } from './native-model.js';
import { isStrictCompatible, jsonSchemaOf } from './structured-output.js';
import { ModelError, type ChatMessage, type ChatRequest, type ChatUsage, type FinishReason } from './types.js';

/** The tag of what this adapter keeps for the next request (ReasoningReplay.provider). */
export const responsesReplay = 'openai-responses';

export interface ResponsesWireSettings {
  model: string;
  temperature?: number;
  /** reasoning.effort for reasoning models; absent: the model's default (and no reasoning settings sent). */
  reasoningEffort?: 'minimal' | 'low' | 'medium' | 'high';
  /** Ask for reasoning summaries ('auto'), so reasoning text reaches the caller. Sent with reasoningEffort. */
  reasoningSummary?: 'auto' | 'concise' | 'detailed';
  /** prompt_cache_key; absent: one derived from the conversation's head, so every request of a run shares it. */
  promptCacheKey?: string;
  /** false: no `include`/`store` (servers that only speak the basic API). */
  statelessReasoning: boolean;
}

function toInputItems(message: ChatMessage): ResponseInputItem[] {
  switch (message.role) {
    case 'system':
    case 'user':
      return [{ role: message.role, content: message.content }];
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.toolCallId, output: message.content }];
    case 'assistant': {
      // Reasoning items first, as the model produced them before its answer and calls.
      const kept =
        message.replay?.provider === responsesReplay ? (message.replay.items as unknown as ResponseInputItem[]) : [];
      const text: ResponseInputItem[] = message.content === '' ? [] : [{ role: 'assistant', content: message.content }];
      const calls: ResponseInputItem[] = (message.toolCalls ?? []).map((call) => ({
        type: 'function_call',
        call_id: call.id,
        name: call.name,
        arguments: call.arguments.trim() === '' ? '{}' : call.arguments,
      }));
      return [...kept, ...text, ...calls];
    }
  }
}

/** A key for OpenAI's prompt cache routing: the same for every request of one conversation (its system and first task). */
export function conversationKey(model: string, messages: ChatMessage[]): string {
  const head = messages.filter((message) => message.role === 'system' || message.role === 'user').slice(0, 2);
  const hash = createHash('sha256').update(model);
  for (const message of head) hash.update(`\u0000${message.role}\u0000${message.content}`);
  return `stageloop-${hash.digest('hex').slice(0, 32)}`;
}

function toolChoiceOf(choice: ChatRequest['toolChoice']): ToolChoiceOptions | ToolChoiceFunction | undefined {
  if (choice === undefined) return undefined;
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}

export function toResponsesParams(request: ChatRequest, settings: ResponsesWireSettings): ResponseCreateParamsBase {
  const tools: Tool[] = (request.tools ?? []).map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: tool.strict,
  }));
  const params: ResponseCreateParamsBase = {
    model: settings.model,
    input: request.messages.flatMap(toInputItems),
    prompt_cache_key: settings.promptCacheKey ?? conversationKey(settings.model, request.messages),
  };
  if (settings.statelessReasoning) {
    params.store = false;
    params.include = ['reasoning.encrypted_content'];
  }
  if (tools.length > 0) params.tools = tools;
  const choice = toolChoiceOf(request.toolChoice);
  if (choice !== undefined && tools.length > 0) params.tool_choice = choice;
  const temperature = request.temperature ?? settings.temperature;
  if (temperature !== undefined) params.temperature = temperature;
  if (request.maxOutputTokens !== undefined) params.max_output_tokens = request.maxOutputTokens;
  if (settings.reasoningEffort !== undefined)
    params.reasoning = { effort: settings.reasoningEffort, summary: settings.reasoningSummary ?? 'auto' };
  const format = request.responseFormat;
  if (format !== undefined) {
    const schema = jsonSchemaOf(format);
    params.text = { format: { type: 'json_schema', name: format.name, schema, strict: isStrictCompatible(schema) } };
  }
  return params;
}

const incompleteReasons: Record<string, FinishReason> = {
  max_output_tokens: 'length',
  content_filter: 'content_filter',
};

/** The Responses usage in our one meaning (input includes cached; output includes reasoning). */
export function usageOf(usage: Response['usage'] | undefined): ChatUsage | undefined {
  if (usage === undefined || usage === null) return undefined;
  const count = (value: unknown) => (typeof value === 'number' && value >= 0 ? value : 0);
  const inputTokens = count(usage.input_tokens);
  return {
    inputTokens,
    outputTokens: count(usage.output_tokens),
    cachedInputTokens: Math.min(count(usage.input_tokens_details?.cached_tokens), inputTokens),
    reasoningTokens: count(usage.output_tokens_details?.reasoning_tokens),
    estimated: false,
  };
}

/** A Response as our reply: message text, function calls, reasoning summaries as reasoning, reasoning items kept. */
export function readResponse(response: Response, url: string): Omit<Reply, 'usage'> & { usage?: ChatUsage } {
  if (response.status === 'failed' || response.error) {
    const error = response.error;
    throw new ModelError('server', `${url} failed the response: ${error?.message ?? 'no details'}`, {
      ...(error?.code === 'rate_limit_exceeded' && { retryable: true }),
    });
  }
  let content = '';
  const reasoning: string[] = [];
  const kept: JsonValue[] = [];
  const toolCalls: Reply['toolCalls'] = [];
  for (const item of response.output ?? []) {
    if (item.type === 'message') {
      for (const part of item.content) content += part.type === 'output_text' ? part.text : part.refusal;
    } else if (item.type === 'function_call') {
      toolCalls.push({ id: item.call_id, name: item.name, arguments: argumentsText(item.arguments) });
    } else if (item.type === 'reasoning') {
      const texts = [...(item.summary ?? []), ...(item.content ?? [])].map((part) => part.text);
      if (texts.length > 0) reasoning.push(texts.join('\n\n'));
      kept.push(item as unknown as JsonValue);
    }
  }
  const refused = (response.output ?? []).some(
    (item) => item.type === 'message' && item.content.some((part) => part.type === 'refusal'),
  );
  const reason: FinishReason =
    response.status === 'incomplete'
      ? (incompleteReasons[response.incomplete_details?.reason ?? ''] ?? 'other')
      : refused
        ? 'content_filter'
        : 'stop';
  const reply: Omit<Reply, 'usage'> & { usage?: ChatUsage } = {
    content,
    toolCalls,
    finishReason: finishWith(reason, toolCalls.length),
    model: response.model,
  };
  const usage = usageOf(response.usage);
  if (usage !== undefined) reply.usage = usage;
  if (reasoning.length > 0) reply.reasoning = reasoning.join('\n\n');
  if (kept.length > 0) reply.replay = { provider: responsesReplay, items: kept };
  return reply;
}
