// A CLI test file's model and home: one loopback chat server answering every request with the file's reply function
// (for the file's lifetime), and a fresh STAGELOOP_HOME folder for each test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { sendReply, startChatServer, type ChatRequestBody, type ChatServer } from './chat-server.js';
import type { ReplyOptions } from './chat-bodies.js';

export interface ScriptedCliSuite {
  /** Started before the file's first test. */
  model: ChatServer;
  /** The current test's folder (its STAGELOOP_HOME). */
  folder: string;
}

export function scriptedCliSuite(reply: (body: ChatRequestBody) => ReplyOptions, name: string): ScriptedCliSuite {
  const suite: ScriptedCliSuite = { model: undefined as unknown as ChatServer, folder: '' };
  beforeAll(async () => {
    suite.model = await startChatServer();
    suite.model.handle(
      (request, response) => sendReply(request, response, reply(request.body)),
      Number.POSITIVE_INFINITY,
    );
  });
  afterAll(() => suite.model.close());
  beforeEach(() => {
    suite.folder = mkdtempSync(join(tmpdir(), `stageloop-${name}-`));
    return () => rmSync(suite.folder, { recursive: true, force: true });
  });
  return suite;
}
