// A reply the loopback server streams in 3-character chunks, `delayMs` apart, counting what it sent so a test can
// tell how far the reply had got when something happened.
import { replyChunks, type ChatServer } from '../support/chat-server.js';

export function slowReply(server: ChatServer, content: string, delayMs: number): { sent: () => number; total: number } {
  const chunks = replyChunks({ content });
  let sent = 0;
  server.handle(async (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const chunk of chunks) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (response.destroyed) return;
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      sent += 1;
    }
    response.end('data: [DONE]\n\n');
  });
  return { sent: () => sent, total: chunks.length };
}
