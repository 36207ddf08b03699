// A minimal chat page on the AI SDK 6 client (DefaultChatTransport + readUIMessageStream, what useChat runs on),
// bundled for the browser by the chat test with vite: a box, a button, and the reply's parts as they arrive.
// Plain JavaScript: it runs in the page, so it is bundled (vite) but not type-checked with the Node sources.
import { DefaultChatTransport, readUIMessageStream } from 'ai';

const transport = new DefaultChatTransport({ api: '/v1/chat' });
const form = document.querySelector('form');
const input = document.querySelector('input');
const reply = document.querySelector('#reply');

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const messages = [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: input.value }] }];
  const stream = await transport.sendMessages({
    chatId: 'page',
    messages,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  for await (const message of readUIMessageStream({ stream })) {
    reply.replaceChildren(
      ...message.parts.map((part) => {
        const item = document.createElement('li');
        item.dataset.type = part.type;
        item.textContent = part.type === 'text' || part.type === 'reasoning' ? part.text : JSON.stringify(part);
        return item;
      }),
    );
  }
  document.body.dataset.done = 'true';
});
