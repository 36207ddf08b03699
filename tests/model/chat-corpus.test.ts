// Every recording of the Chat Completions corpus, replayed on loopback to the adapter alone: the reply it makes of
// each real answer (text, reasoning, tool calls, finish reason, usage) or the one-line error it names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { ModelError, type ChatRequest, type ChatResponse, type ChatStreamEvent } from '../../src/model/types.js';
import { loadCorpus, type CorpusRecording } from '../support/chat-corpus.js';
import { startReplayServer, type ReplayServer } from '../support/replay-server.js';

const corpus = loadCorpus();
const request: ChatRequest = { purpose: 'think', messages: [{ role: 'user', content: 'Hello' }] };

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(() => server.close());

function modelOn(): OpenAIChatModel {
  return new OpenAIChatModel({ baseUrl: server.url('/v1'), model: 'recorded', apiKey: 'sk-test', maxRetries: 0 });
}

async function replay(
  entry: CorpusRecording,
): Promise<{ response?: ChatResponse; error?: ModelError; events: ChatStreamEvent[] }> {
  server.queue(entry.answer);
  const events: ChatStreamEvent[] = [];
  const model = modelOn();
  try {
    const response = entry.stream
      ? await model.chatStream(request, (event) => events.push(event))
      : await model.chat(request);
    return { response, events };
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    return { error, events };
  }
}

describe('the Chat Completions corpus, adapter alone', () => {
  it('holds at least 60 recordings from at least 12 providers, each with its source', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60);
    expect(new Set(corpus.map((entry) => entry.provider)).size).toBeGreaterThanOrEqual(12);
    for (const entry of corpus) expect(entry.source, entry.name).toMatch(/\S+/);
  });

  it.each(corpus.map((entry) => [entry.name, entry] as const))('%s', async (_name, entry) => {
    const { response, error, events } = await replay(entry);
    const expected = entry.expect;
    if (expected.error !== undefined) {
      expect(error?.message, 'the call should fail').toContain(expected.error);
      expect(error!.message).not.toMatch(/\n|no body|status code/);
      if (expected.errorKind !== undefined) expect(error!.kind).toBe(expected.errorKind);
      return;
    }
    if (error !== undefined) throw error;
    const reply = response!;
    if (expected.text !== undefined) expect(reply.content).toBe(expected.text);
    if (expected.textIncludes !== undefined) expect(reply.content).toContain(expected.textIncludes);
    if (expected.reasoning !== undefined) expect(reply.reasoning).toBe(expected.reasoning);
    if (expected.reasoningIncludes !== undefined) expect(reply.reasoning).toContain(expected.reasoningIncludes);
    if (expected.reasoning === undefined && expected.reasoningIncludes === undefined)
      expect(reply.reasoning).toBeUndefined();
    if (expected.toolCalls !== undefined)
      expect(reply.toolCalls.map((call) => [call.name, call.arguments])).toEqual(expected.toolCalls);
    if (expected.finishReason !== undefined) expect(reply.finishReason).toBe(expected.finishReason);
    if (expected.usage !== undefined)
      expect({ ...reply.usage, estimated: undefined }).toEqual({ ...expected.usage, estimated: undefined });
    if (expected.replay !== undefined) expect(reply.replay?.items).toEqual([expected.replay]);
    if (entry.stream) {
      // What a listener saw adds up to the reply.
      const seen = (type: ChatStreamEvent['type']) =>
        events.flatMap((event) => (event.type === type && 'delta' in event ? [event.delta] : [])).join('');
      expect(seen('text')).toBe(reply.content);
      expect(seen('reasoning')).toBe(reply.reasoning ?? '');
    }
  });
});
