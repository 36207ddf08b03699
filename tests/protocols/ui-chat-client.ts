// The AI SDK 6 client side of POST /v1/chat, as useChat uses it: DefaultChatTransport sends, readUIMessageStream reads.
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import type { TestServe } from '../server/serve-support.js';

/** Sends the messages as useChat would, and reads the reply both as raw chunks and as the last UIMessage. */
export async function chat(
  serve: TestServe,
  messages: UIMessage[],
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ chunks: UIMessageChunk[]; message: UIMessage }> {
  const transport = new DefaultChatTransport<UIMessage>({ api: `${serve.running.url}/v1/chat`, body, headers });
  const stream = await transport.sendMessages({
    chatId: 'chat-1',
    messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  const [forChunks, forMessages] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const reading = (async () => {
    for await (const chunk of forChunks) chunks.push(chunk);
  })();
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream: forMessages })) message = snapshot;
  await reading;
  return { chunks, message: message! };
}
