// The Responses API's streamed events: text, reasoning and call-argument deltas passed on as they arrive; the reply
// itself is read from the final response event (completed, incomplete or failed), which carries the whole Response.
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ModelError, type ChatStreamEvent } from './types.js';

export class ResponsesStreamAssembler {
  private final: Response | undefined;
  /** Our tool-call index of each function_call output item. */
  private readonly callIndex = new Map<number, number>();
  /** What arrived for each output item, for servers whose final event lists no output. */
  private readonly items = new Map<number, Record<string, unknown>>();

  constructor(
    private readonly onEvent: (event: ChatStreamEvent) => void,
    private readonly url: string,
  ) {}

  add(event: ResponseStreamEvent): void {
    switch (event.type) {
      case 'response.output_text.delta':
        this.onEvent({ type: 'text', delta: event.delta });
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        this.onEvent({ type: 'reasoning', delta: event.delta });
        return;
      case 'response.output_item.added':
      case 'response.output_item.done': {
        const item = event.item;
        this.items.set(event.output_index, item as unknown as Record<string, unknown>);
        if (item.type === 'function_call' && !this.callIndex.has(event.output_index)) {
          const index = this.callIndex.size;
          this.callIndex.set(event.output_index, index);
          this.onEvent({ type: 'tool_call', index, id: item.call_id, name: item.name, argumentsDelta: '' });
        }
        return;
      }
      case 'response.function_call_arguments.delta': {
        const index = this.callIndex.get(event.output_index);
        if (index !== undefined) this.onEvent({ type: 'tool_call', index, argumentsDelta: event.delta });
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.final = event.response;
        return;
      case 'error':
        throw new ModelError('server', `${this.url} reported an error while streaming: ${event.message}`);
      default:
        return;
    }
  }

  /** The final Response; its output filled from the items seen when the server sent it empty. */
  result(): Response {
    const final = this.final;
    if (final === undefined)
      throw new ModelError('invalid_response', `${this.url} ended the stream before its response.completed event`, {
        retryable: true,
      });
    if ((final.output ?? []).length > 0 || this.items.size === 0) return final;
    const output = [...this.items.keys()].sort((a, b) => a - b).map((index) => this.items.get(index));
    return { ...final, output: output as unknown as Response['output'] };
  }
}
