// A conversation of tool rounds, as the prune and rendered-context tests need: system, task, then `rounds` search calls
// each answered by a long page.
import type { ChatMessage } from '../../src/model/types.js';

export interface ToolConversation {
  system: string;
  task: string;
  /** The tool result of round `round`, asked for "city N". */
  page: (topic: string) => string;
}

export function toolConversation(rounds: number, { system, task, page }: ToolConversation): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: task },
  ];
  for (let round = 1; round <= rounds; round++) {
    messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `call_${round}`, name: 'search', arguments: `{"q":"city ${round}"}` }],
    });
    messages.push({ role: 'tool', toolCallId: `call_${round}`, name: 'search', content: page(`city ${round}`) });
  }
  return messages;
}
