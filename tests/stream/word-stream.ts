// A reply the loopback server streams word by word (each word with the space after it as one chunk), as real servers
// stream an answer, so a test can count the pieces a stream gives.
import { replyChunks, textChunk, type ChatServer, type ReplyOptions } from '../support/chat-server.js';

export function wordPieces(content: string): string[] {
  return content.match(/\S+\s*/g) ?? [];
}

export function streamWordByWord(server: ChatServer, reply: ReplyOptions, delayMs = 2): void {
  const [first, ...rest] = replyChunks({ ...reply, content: '' });
  server.stream([first!, ...wordPieces(reply.content ?? '').map((word) => textChunk(word)), ...rest], { delayMs });
}
