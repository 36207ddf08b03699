// Builds one model turn from streamed chunks: text and reasoning pieces, tool-call fragments by index (and the legacy
// function_call), the finish reason and usage.
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { JsonObject } from '../common/json.js';
import { usageFromServer, type ServerUsage } from './usage-estimate.js';
import { textOf, type WireTurn } from './openai-wire.js';
import {
  mergeDetails,
  readParts,
  replayFieldsOf,
  ThinkTagRouter,
  type ReadParts,
  type ReasoningFields,
} from './openai-reasoning.js';
import type { ChatStreamEvent } from './types.js';

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/** A chunk as servers send it: the SDK's type plus the fields it does not know. */
type ServerChunk = ChatCompletionChunk & { x_groq?: { usage?: ServerUsage } };
type ServerDelta = ChatCompletionChunk.Choice.Delta &
  ReasoningFields & { function_call?: { name?: unknown; arguments?: unknown } };

export class StreamAssembler {
  private content = '';
  private reasoning = '';
  private reasoningContent = '';
  private readonly details: JsonObject[] = [];
  private readonly calls = new Map<number, PartialCall>();
  private readonly thinkTags = new ThinkTagRouter();
  private finishReason: string | null = null;
  private usage: WireTurn['usage'];
  private model: string | undefined;

  constructor(
    private readonly onEvent: (event: ChatStreamEvent) => void,
    private readonly newId: () => string,
    private readonly url = 'the server',
  ) {}

  add(chunk: ServerChunk): void {
    if (typeof chunk.model === 'string' && chunk.model !== '') this.model = chunk.model;
    // With include_usage the last chunk has no choices, only usage; some servers put usage on every chunk, Groq in x_groq.
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage) this.usage = usageFromServer(usage) ?? this.usage;
    const choice = chunk.choices?.[0];
    if (choice === undefined) return;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta: ServerDelta = choice.delta ?? {};
    const read = readParts(delta, this.url, 'a streamed content delta');
    const text = read.text !== '' ? read.text : textOf(delta.refusal, this.url, 'a streamed refusal');
    const routed = this.thinkTags.route(text);
    this.addParts({ text: routed.text, reasoning: read.reasoning + routed.reasoning });
    if (typeof delta.reasoning_content === 'string') this.reasoningContent += delta.reasoning_content;
    if (delta.reasoning_details !== undefined) mergeDetails(this.details, delta.reasoning_details);
    for (const fragment of delta.tool_calls ?? []) this.addToolFragment(fragment);
    // The legacy function_call streams like one tool call without an id.
    if (delta.function_call && typeof delta.function_call === 'object')
      this.addToolFragment({ index: 0, function: delta.function_call } as ChatCompletionChunk.Choice.Delta.ToolCall);
  }

  private addParts(parts: ReadParts): void {
    if (parts.reasoning !== '') {
      this.reasoning += parts.reasoning;
      this.onEvent({ type: 'reasoning', delta: parts.reasoning });
    }
    if (parts.text !== '') {
      this.content += parts.text;
      this.onEvent({ type: 'text', delta: parts.text });
    }
  }

  private addToolFragment(fragment: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    // Some servers omit `index` when they send whole calls: treat each such fragment as the next call.
    const index = typeof fragment.index === 'number' ? fragment.index : this.calls.size;
    let call = this.calls.get(index);
    if (call === undefined) {
      call = { id: '', name: '', arguments: '' };
      this.calls.set(index, call);
    }
    if (fragment.id) call.id = fragment.id;
    // Names arrive whole in the first fragment on OpenAI, but some servers repeat them: do not double them.
    const name = textOf(fragment.function?.name, this.url, 'a streamed tool call name');
    if (name && !call.name.endsWith(name)) call.name += name;
    const rawArguments = fragment.function?.arguments as unknown;
    // Servers for small open models sometimes send the arguments object itself, whole.
    const argumentsDelta =
      typeof rawArguments === 'object' && rawArguments !== null && !Array.isArray(rawArguments)
        ? JSON.stringify(rawArguments)
        : textOf(rawArguments, this.url, 'streamed tool call arguments');
    call.arguments += argumentsDelta;
    const event: ChatStreamEvent = { type: 'tool_call', index, argumentsDelta };
    if (fragment.id) event.id = fragment.id;
    if (name) event.name = name;
    this.onEvent(event);
  }

  result(): WireTurn {
    this.addParts(this.thinkTags.flush());
    const toolCalls = [...this.calls.entries()]
      .sort(([first], [second]) => first - second)
      .map(([, call]) => ({ id: call.id || this.newId(), name: call.name, arguments: call.arguments }));
    const turn: WireTurn = { content: this.content, toolCalls, finishReason: this.finishReason };
    if (this.reasoning !== '') turn.reasoning = this.reasoning;
    const replay = replayFieldsOf(this.reasoningContent, this.details);
    if (replay !== undefined) turn.replayFields = replay;
    if (this.usage !== undefined) turn.usage = this.usage;
    if (this.model !== undefined) turn.model = this.model;
    return turn;
  }
}
