// Every recording of the Responses and Anthropic corpora (real replies of the real APIs, from public repositories:
// tests/fixtures/providers/*/README.md) replayed by a loopback server through the adapter, streamed when recorded so.
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicModel } from '../../src/model/anthropic-model.js';
import { OpenAIResponsesModel } from '../../src/model/openai-responses-model.js';
import type { ChatModel, ChatStreamEvent } from '../../src/model/types.js';
import { startRecordedServer, type RecordedServer } from '../support/recorded-server.js';
import { expectations, recordingFiles, replyOf } from './corpus.js';

let server: RecordedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const modelFor = (api: 'anthropic' | 'responses', url: string): ChatModel =>
  api === 'anthropic'
    ? new AnthropicModel({ model: 'claude-test', baseUrl: url, apiKey: 'sk-ant-test', maxRetries: 0 })
    : new OpenAIResponsesModel({ model: 'gpt-test', baseUrl: `${url}/v1`, apiKey: 'sk-test', maxRetries: 0 });

describe.each(['anthropic', 'responses'] as const)('the %s corpus', (api) => {
  const all = expectations(api);

  it('has at least 20 recordings, each with what it must read as', () => {
    expect(all.length).toBeGreaterThanOrEqual(20);
    expect(new Set(recordingFiles(api))).toEqual(new Set(all.map((entry) => entry.file)));
  });

  it.each(all.map((entry) => [`${entry.file}${entry.part === undefined ? '' : ` #${entry.part}`}`, entry] as const))(
    '%s',
    async (_name, entry) => {
      const reply = replyOf(api, entry);
      server = await startRecordedServer([reply]);
      const model = modelFor(api, server.url);
      const request = { messages: [{ role: 'user' as const, content: 'hi' }], purpose: 'think' };
      const events: ChatStreamEvent[] = [];
      const call = reply.streamed ? model.chatStream!(request, (event) => events.push(event)) : model.chat(request);
      if (entry.error !== undefined) {
        await expect(call).rejects.toThrow(entry.error);
        const error = (await call.catch((caught: unknown) => caught as Error)) as Error;
        expect(error.message).not.toContain('\n');
        return;
      }
      const response = await call;
      expect((server.requests[0]!.body as { stream?: boolean }).stream).toBe(reply.streamed);
      expect(response.content.slice(0, 40)).toBe(entry.content);
      expect(response.toolCalls.map((toolCall) => toolCall.name)).toEqual(entry.toolCalls);
      for (const toolCall of response.toolCalls) expect(() => JSON.parse(toolCall.arguments)).not.toThrow();
      expect(response.finishReason).toBe(entry.finishReason);
      expect(response.usage).toEqual({ ...entry.usage, estimated: false });
      expect(response.reasoning?.slice(0, 30)).toBe(entry.reasoning);
      expect(response.replay?.items.length).toBe(entry.replayItems);
      if (entry.replayItems !== undefined)
        expect(response.replay!.provider).toBe(api === 'anthropic' ? 'anthropic' : 'openai-responses');
      if (!reply.streamed) return;
      // What streamed adds up to what the reply says.
      const streamedText = events.flatMap((event) => (event.type === 'text' ? [event.delta] : [])).join('');
      if (!entry.deltasTrimmed) expect(streamedText).toBe(response.content);
      const streamedReasoning = events.flatMap((event) => (event.type === 'reasoning' ? [event.delta] : [])).join('');
      if (api === 'anthropic') expect(streamedReasoning).toBe(response.reasoning ?? '');
      const names = events.flatMap((event) => (event.type === 'tool_call' && event.name ? [event.name] : []));
      expect(names).toEqual(response.toolCalls.map((toolCall) => toolCall.name));
    },
  );
});
