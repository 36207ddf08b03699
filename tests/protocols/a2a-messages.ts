// What an A2A client sends, for the tests that talk to serve through @a2a-js/sdk's client: a user's text message and
// the SendMessage request around it.
import { Role, type Message } from '@a2a-js/sdk';

export function userMessage(text: string, metadata: Record<string, unknown> = {}): Message {
  return {
    role: Role.ROLE_USER,
    messageId: crypto.randomUUID(),
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    taskId: '',
    contextId: '',
    extensions: [],
    metadata,
    referenceTaskIds: [],
  };
}

export const send = (message: Message) => ({ tenant: '', message, configuration: undefined, metadata: undefined });
