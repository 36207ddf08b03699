// One loopback Chat Completions server per test, and OpenAIChatModels pointed at it: the set-up every test of a
// model path shares (tests/support/chat-server.ts has the server's scripting API).
import { afterEach, beforeEach } from 'vitest';
import { OpenAIChatModel, type OpenAIChatModelOptions } from '../../src/model/openai-model.js';
import { startChatServer, type ChatServer } from './chat-server.js';

export interface Loopback {
  /** The server of the running test (a fresh one per test). */
  readonly server: ChatServer;
  /** A model on the server: no retries, 2 s timeout, model `test-model`, then `defaults`, then `options`. */
  model(options?: Partial<OpenAIChatModelOptions>): OpenAIChatModel;
}

/** Call at the top of a test file or describe block: starts a server before each test and closes it after. */
export function useLoopbackServer(defaults: Partial<OpenAIChatModelOptions> = {}): Loopback {
  let current: ChatServer | undefined;
  beforeEach(async () => {
    current = await startChatServer();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    get server(): ChatServer {
      if (current === undefined) throw new Error('useLoopbackServer: the server exists only while a test runs');
      return current;
    },
    model(options = {}) {
      return new OpenAIChatModel({
        baseUrl: this.server.url,
        model: 'test-model',
        maxRetries: 0,
        timeoutMs: 2_000,
        ...defaults,
        ...options,
      });
    },
  };
}
