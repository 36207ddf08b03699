// Anthropic's streamed events put back together into the Message a non-streamed request returns, with each text,
// thinking and tool-input delta passed on as it arrives.
import type { Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import { ModelError, type ChatStreamEvent } from './types.js';

type Block = Record<string, unknown> & { type: string };

export class AnthropicStreamAssembler {
  private message: Message | undefined;
  private readonly blocks = new Map<number, Block>();
  private readonly partialJson = new Map<number, string>();
  /** Our tool-call index of each tool_use block (the stream's index counts every block). */
  private readonly callIndex = new Map<number, number>();

  constructor(
    private readonly onEvent: (event: ChatStreamEvent) => void,
    private readonly url: string,
  ) {}

  add(event: RawMessageStreamEvent | { type: string }): void {
    const known = event as RawMessageStreamEvent;
    switch (known.type) {
      case 'message_start':
        // A second message_start (seen from proxies) starts over only if nothing arrived yet.
        this.message ??= { ...known.message, content: [] };
        return;
      case 'content_block_start': {
        const block = { ...(known.content_block as unknown as Block) };
        if (block.type === 'tool_use' || block.type === 'server_tool_use') {
          const index = this.callIndex.size;
          this.callIndex.set(known.index, index);
          if (block.type === 'tool_use')
            this.onEvent({
              type: 'tool_call',
              index,
              id: String(block.id),
              name: String(block.name),
              argumentsDelta: '',
            });
        }
        this.blocks.set(known.index, block);
        if (block.type === 'text' && typeof block.text === 'string' && block.text !== '')
          this.onEvent({ type: 'text', delta: block.text });
        return;
      }
      case 'content_block_delta':
        return this.delta(known.index, known.delta as unknown as Record<string, string>);
      case 'content_block_stop': {
        const json = this.partialJson.get(known.index);
        const block = this.blocks.get(known.index);
        if (block !== undefined && json !== undefined) block.input = json.trim() === '' ? {} : parseInput(json);
        return;
      }
      case 'message_delta': {
        const message = this.started();
        message.stop_reason = known.delta.stop_reason ?? message.stop_reason;
        // message_delta's usage is cumulative: its numbers replace message_start's where given.
        for (const [key, value] of Object.entries(known.usage ?? {}))
          if (value !== null && value !== undefined) (message.usage as unknown as Record<string, unknown>)[key] = value;
        return;
      }
      default:
        return; // ping, message_stop and events added later
    }
  }

  private delta(index: number, delta: Record<string, string>): void {
    const block = this.blocks.get(index);
    if (block === undefined) return;
    switch (delta.type) {
      case 'text_delta':
        block.text = String(block.text ?? '') + delta.text;
        this.onEvent({ type: 'text', delta: delta.text! });
        return;
      case 'thinking_delta':
        block.thinking = String(block.thinking ?? '') + delta.thinking;
        this.onEvent({ type: 'reasoning', delta: delta.thinking! });
        return;
      case 'signature_delta':
        block.signature = String(block.signature ?? '') + delta.signature;
        return;
      case 'input_json_delta': {
        this.partialJson.set(index, (this.partialJson.get(index) ?? '') + delta.partial_json);
        const call = this.callIndex.get(index);
        if (call !== undefined && block.type === 'tool_use')
          this.onEvent({ type: 'tool_call', index: call, argumentsDelta: delta.partial_json! });
        return;
      }
      default:
        return;
    }
  }

  private started(): Message {
    if (this.message === undefined)
      throw new ModelError('invalid_response', `${this.url} streamed a message without its message_start event`);
    return this.message;
  }

  /** The whole Message, its blocks in the order the stream numbered them. */
  result(): Message {
    const message = this.started();
    const indexes = [...this.blocks.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      const block = this.blocks.get(index)!;
      if (this.partialJson.has(index) && block.input === undefined)
        block.input = parseInput(this.partialJson.get(index)!);
    }
    return { ...message, content: indexes.map((index) => this.blocks.get(index)!) as unknown as Message['content'] };
  }
}

/** A tool's input as streamed: JSON text, kept as text when cut off (so the call's problem is visible, not lost). */
function parseInput(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}
