// finish_reason "length": a reply cut off by the output cap is reported as `length` with the raw partial text, never thrown.
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/model/types.js';
import { finishChunk, toolCallChunk, usageChunk } from '../support/chat-server.js';
import { useLoopbackServer } from '../support/loopback-model.js';

const request: ChatRequest = {
  purpose: 'think',
  messages: [{ role: 'user', content: 'Write a long note with the tool' }],
  tools: [
    {
      name: 'write_note',
      description: 'writes a note',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      strict: false,
    },
  ],
  maxOutputTokens: 8,
};

const loopback = useLoopbackServer({ apiKey: 'sk-test' });

const model = (toolProtocol: 'native' | 'text' = 'native') => loopback.model({ toolProtocol });

describe('finish_reason "length"', () => {
  it('reports cut-off tool arguments as length, raw (non-streamed)', async () => {
    loopback.server.replyWithToolCalls([{ id: 'call_1', name: 'write_note', arguments: '{"text": "Once upon a ti' }], {
      finishReason: 'length',
      usage: { input: 40, output: 8 },
    });
    const response = await model().chat(request);
    expect(response.finishReason).toBe('length');
    expect(response.toolCalls).toEqual([{ id: 'call_1', name: 'write_note', arguments: '{"text": "Once upon a ti' }]);
    expect(response.usage.outputTokens).toBe(8);
  });

  it('reports cut-off tool arguments as length, raw (streamed)', async () => {
    loopback.server.stream([
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
    loopback.server.replyWith({ content: cut, finishReason: 'length' });
    const response = await model('text').chat(request);
    expect(response.finishReason).toBe('length');
    expect(response.content).toBe(cut);
    expect(response.toolCalls).toEqual([]);
  });

  it('reports cut-off text as length', async () => {
    loopback.server.replyWith({ content: 'The answer is a very long', finishReason: 'length' });
    const response = await model().chat(request);
    expect(response).toMatchObject({ finishReason: 'length', content: 'The answer is a very long', toolCalls: [] });
  });
});
