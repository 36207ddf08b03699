// finish_reason "length": a reply cut off by the output cap is reported as `length` with the raw partial text, never thrown.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import type { ChatRequest } from '../../src/model/types.js';
import { finishChunk, startChatServer, toolCallChunk, usageChunk, type ChatServer } from '../support/chat-server.js';

const request: ChatRequest = {
  purpose: 'think',
  messages: [{ role: 'user', content: 'Write a long note with the tool' }],
  tools: [{ name: 'write_note', description: 'writes a note', parameters: { type: 'object', properties: { text: { type: 'string' } } }, strict: false }],
  maxOutputTokens: 8,
};

let server: ChatServer;
beforeEach(async () => {
  server = await startChatServer();
});
afterEach(async () => {
  await server.close();
});

function model(toolProtocol: 'native' | 'text' = 'native'): OpenAIChatModel {
  return new OpenAIChatModel({ baseUrl: server.url, model: 'test-model', apiKey: 'sk-test', maxRetries: 0, timeoutMs: 2_000, toolProtocol });
}

describe('finish_reason "length"', () => {
  it('reports cut-off tool arguments as length, raw (non-streamed)', async () => {
    server.replyWithToolCalls([{ id: 'call_1', name: 'write_note', arguments: '{"text": "Once upon a ti' }], { finishReason: 'length', usage: { input: 40, output: 8 } });
    const response = await model().chat(request);
    expect(response.finishReason).toBe('length');
    expect(response.toolCalls).toEqual([{ id: 'call_1', name: 'write_note', arguments: '{"text": "Once upon a ti' }]);
    expect(response.usage.outputTokens).toBe(8);
  });

  it('reports cut-off tool arguments as length, raw (streamed)', async () => {
    server.stream([
      toolCallChunk(0, { id: 'call_1', name: 'write_note', arguments: '{"te' }),
      toolCallChunk(0, { arguments: 'xt": "Once up' }),
      finishChunk('length'),
      usageChunk({ input: 40, output: 8 }),
    ]);
    const response = await model().chatStream(request, () => undefined);
    expect(response.finishReason).toBe('length');
    expect(response.toolCalls).toEqual([{ id: 'call_1', name: 'write_note', arguments: '{"text": "Once up' }]);
  });

  it('reports a cut-off text-protocol Action as length with the raw text', async () => {
    const cut = 'I will write it.\nAction: {"type":"tool","name":"write_note","args":{"text":"Once upon';
    server.replyWith({ content: cut, finishReason: 'length' });
    const response = await model('text').chat(request);
    expect(response.finishReason).toBe('length');
    expect(response.content).toBe(cut);
    expect(response.toolCalls).toEqual([]);
  });

  it('reports cut-off text as length', async () => {
    server.replyWith({ content: 'The answer is a very long', finishReason: 'length' });
    const response = await model().chat(request);
    expect(response).toMatchObject({ finishReason: 'length', content: 'The answer is a very long', toolCalls: [] });
  });
});
