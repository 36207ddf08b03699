// Our ChatRequest as the AI SDK's language-model call options (provider specification v3) and its result back.
// The spec's types are used inside the functions only, so no declaration of ours names the optional package.
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3Message,
  LanguageModelV3ReasoningPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type { JsonObject, JsonValue } from '../common/json.js';
import { argumentsObject, argumentsText, finishWith, type Reply } from './native-model.js';
import { jsonSchemaOf } from './structured-output.js';
import type { ChatMessage, ChatRequest, ChatUsage, FinishReason } from './types.js';

/** The replay tag of a model: reasoning goes back only to the same AI SDK provider. */
export const aiSdkReplay = (provider: string) => `ai-sdk:${provider}`;

function toPromptMessage(message: ChatMessage, replayTag: string): LanguageModelV3Message[] {
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: message.content }];
    case 'user':
      return [{ role: 'user', content: [{ type: 'text', text: message.content }] }];
    case 'tool':
      return [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.toolCallId,
              toolName: message.name,
              output: { type: 'text', value: message.content },
            },
          ],
        },
      ];
    case 'assistant': {
      // Reasoning parts with their provider metadata (signatures, encrypted items) go back as provider options.
      const kept = message.replay?.provider === replayTag ? (message.replay.items as unknown as ReasoningItem[]) : [];
      const reasoning: LanguageModelV3ReasoningPart[] = kept.map((item) => ({
        type: 'reasoning',
        text: item.text,
        ...(item.providerMetadata !== undefined && { providerOptions: item.providerMetadata }),
      }));
      const text = message.content === '' ? [] : [{ type: 'text' as const, text: message.content }];
      const calls = (message.toolCalls ?? []).map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.name,
        input: argumentsObject(call.arguments),
      }));
      return [{ role: 'assistant', content: [...reasoning, ...text, ...calls] }];
    }
  }
}

type ReasoningItem = { text: string; providerMetadata?: LanguageModelV3ReasoningPart['providerOptions'] };

/** The call options for one request (`replayTag`: which kept reasoning is this provider's). */
export function toCallOptions(request: ChatRequest, replayTag: string, temperature: number | undefined): object {
  const options: LanguageModelV3CallOptions = {
    prompt: request.messages.flatMap((message) => toPromptMessage(message, replayTag)),
  };
  const tools = request.tools ?? [];
  if (tools.length > 0)
    options.tools = tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      inputSchema: tool.parameters as never,
      ...(tool.strict && { strict: true }),
    }));
  const choice = request.toolChoice;
  if (choice !== undefined && tools.length > 0)
    options.toolChoice = typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name };
  const chosenTemperature = request.temperature ?? temperature;
  if (chosenTemperature !== undefined) options.temperature = chosenTemperature;
  if (request.maxOutputTokens !== undefined) options.maxOutputTokens = request.maxOutputTokens;
  const format = request.responseFormat;
  if (format !== undefined)
    options.responseFormat = { type: 'json', name: format.name, schema: jsonSchemaOf(format) as never };
  return options;
}

const finishReasons: Record<LanguageModelV3FinishReason['unified'], FinishReason> = {
  stop: 'stop',
  length: 'length',
  'content-filter': 'content_filter',
  'tool-calls': 'tool_calls',
  error: 'other',
  other: 'other',
};

/** The spec's usage in our one meaning (its input total already counts cache reads and writes). */
export function usageOfSpec(usage: unknown): ChatUsage | undefined {
  const { inputTokens, outputTokens } = (usage ?? {}) as Partial<LanguageModelV3Usage>;
  if (inputTokens?.total === undefined && outputTokens?.total === undefined) return undefined;
  const input =
    inputTokens?.total ?? (inputTokens?.noCache ?? 0) + (inputTokens?.cacheRead ?? 0) + (inputTokens?.cacheWrite ?? 0);
  return {
    inputTokens: input,
    outputTokens: outputTokens?.total ?? (outputTokens?.text ?? 0) + (outputTokens?.reasoning ?? 0),
    cachedInputTokens: Math.min(inputTokens?.cacheRead ?? 0, input),
    reasoningTokens: outputTokens?.reasoning ?? 0,
    estimated: false,
  };
}

/** A generate result (or what a stream assembled into the same shape) as our reply, without usage. */
export function readContent(
  content: unknown[],
  finishReason: unknown,
  replayTag: string,
): Omit<Reply, 'usage' | 'model'> {
  let text = '';
  const reasoning: string[] = [];
  const kept: JsonValue[] = [];
  const toolCalls: Reply['toolCalls'] = [];
  for (const part of content as LanguageModelV3Content[]) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'tool-call' && !part.providerExecuted)
      toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: argumentsText(part.input) });
    else if (part.type === 'reasoning') {
      reasoning.push(part.text);
      kept.push({
        text: part.text,
        ...(part.providerMetadata !== undefined && { providerMetadata: part.providerMetadata as JsonObject }),
      });
    }
  }
  const unified = (finishReason as LanguageModelV3FinishReason | undefined)?.unified ?? 'stop';
  const reply: Omit<Reply, 'usage' | 'model'> = {
    content: text,
    toolCalls,
    finishReason: finishWith(finishReasons[unified] ?? 'other', toolCalls.length),
  };
  if (reasoning.some((part) => part !== '')) reply.reasoning = reasoning.join('\n\n');
  if (kept.length > 0) reply.replay = { provider: replayTag, items: kept };
  return reply;
}
