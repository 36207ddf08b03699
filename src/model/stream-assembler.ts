// Builds one model turn from streamed chunks: text pieces, tool-call fragments by index, the finish reason and usage.
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { usageFromServer } from './usage-estimate.js';
import { textOf, type WireTurn } from './openai-wire.js';
import type { ChatStreamEvent } from './types.js';

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

export class StreamAssembler {
  private content = '';
  private readonly calls = new Map<number, PartialCall>();
  private finishReason: string | null = null;
  private usage: WireTurn['usage'];
  private model: string | undefined;

  constructor(
    private readonly onEvent: (event: ChatStreamEvent) => void,
    private readonly newId: () => string,
    private readonly url = 'the server',
  ) {}

  add(chunk: ChatCompletionChunk): void {
    if (typeof chunk.model === 'string' && chunk.model !== '') this.model = chunk.model;
    // With include_usage the last chunk has no choices, only usage; some servers put usage on every chunk.
    if (chunk.usage) this.usage = usageFromServer(chunk.usage) ?? this.usage;
    const choice = chunk.choices?.[0];
    if (choice === undefined) return;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    const text = textOf(delta.content ?? delta.refusal, this.url, 'a streamed content delta');
    if (text) {
      this.content += text;
      this.onEvent({ type: 'text', delta: text });
    }
    for (const fragment of delta.tool_calls ?? []) this.addToolFragment(fragment);
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
    const argumentsDelta = textOf(fragment.function?.arguments, this.url, 'streamed tool call arguments');
    call.arguments += argumentsDelta;
    const event: ChatStreamEvent = { type: 'tool_call', index, argumentsDelta };
    if (fragment.id) event.id = fragment.id;
    if (name) event.name = name;
    this.onEvent(event);
  }

  result(): WireTurn {
    const toolCalls = [...this.calls.entries()]
      .sort(([first], [second]) => first - second)
      .map(([, call]) => ({ id: call.id || this.newId(), name: call.name, arguments: call.arguments }));
    const turn: WireTurn = { content: this.content, toolCalls, finishReason: this.finishReason };
    if (this.usage !== undefined) turn.usage = this.usage;
    if (this.model !== undefined) turn.model = this.model;
    return turn;
  }
}
