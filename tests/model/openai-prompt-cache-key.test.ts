// OpenAI's prompt_cache_key on Chat Completions (#41): an adapter given `promptCacheKey` sends it on every request,
// plain and streamed; without it the field is not sent (other servers may refuse a field they do not know).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import type { ChatRequest } from '../../src/model/types.js';
import { recording } from '../support/chat-corpus.js';
import { startReplayServer, type ReplayServer } from '../support/replay-server.js';

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

const request: ChatRequest = { purpose: 'think', messages: [{ role: 'user', content: 'Hello' }] };
const sentBody = (index: number) => server.requests[index]!.body as Record<string, unknown>;

describe('prompt_cache_key on Chat Completions', () => {
  it('is sent on every request when set, plain and streamed, and left out when not', async () => {
    const plain = recording('openai/text-gpt-4.1-nano.json');
    const streamed = recording('openai/text-after-tool-streamed.json');
    expect([plain.stream, streamed.stream]).toEqual([false, true]);
    server.queue(plain.answer).queue(streamed.answer).queue(plain.answer);
    const keyed = new OpenAIChatModel({
      baseUrl: server.url('/v1'),
      model: 'gpt-4.1-nano',
      apiKey: 'sk-test',
      promptCacheKey: 'session-42',
    });
    await keyed.chat(request);
    await keyed.chatStream(request, () => {});
    expect([sentBody(0).prompt_cache_key, sentBody(1).prompt_cache_key]).toEqual(['session-42', 'session-42']);
    expect(sentBody(1).stream).toBe(true);
    await new OpenAIChatModel({ baseUrl: server.url('/v1'), model: 'gpt-4.1-nano', apiKey: 'sk-test' }).chat(request);
    expect('prompt_cache_key' in sentBody(2)).toBe(false);
  });
});
