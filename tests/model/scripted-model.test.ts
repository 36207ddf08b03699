// ScriptedModel: plays its steps in order, records requests, and fails loudly when the run goes off script.
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import type { ChatRequest } from '../../src/model/types.js';

function ask(purpose: string, text = 'hi'): ChatRequest {
  return { purpose, messages: [{ role: 'user', content: text }] };
}

describe('ScriptedModel', () => {
  it('plays replies in order with sensible defaults and records each request', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'calculator', arguments: '{"expression":"2+2"}' }] },
      { content: '4' },
    ]);
    const first = await model.chat(ask('think', 'what is 2+2?'));
    expect(first).toMatchObject({
      content: '',
      finishReason: 'tool_calls',
      model: 'scripted-model',
      toolCalls: [{ id: 'call_1_1', name: 'calculator' }],
    });
    const second = await model.chat(ask('think', 'and now?'));
    expect(second).toMatchObject({ content: '4', finishReason: 'stop', toolCalls: [] });
    expect(model.requests.map((request) => request.messages[0]!.content)).toEqual(['what is 2+2?', 'and now?']);
    model.assertConsumed();
  });

  it('records a copy of the request, not the caller’s object', async () => {
    const model = new ScriptedModel([{ content: 'a' }]);
    const request = ask('think', 'original');
    await model.chat(request);
    request.messages.push({ role: 'user', content: 'added later' });
    expect(model.requests[0]!.messages).toHaveLength(1);
  });

  it('throws a clear error on a call beyond the script', async () => {
    const model = new ScriptedModel([{ content: 'only one' }]);
    await model.chat(ask('think'));
    await expect(model.chat(ask('summarize'))).rejects.toThrow(
      'ScriptedModel: unexpected call #2 (purpose "summarize"): the script has only 1 step(s)',
    );
  });

  it('assertConsumed fails when steps are left over', async () => {
    const model = new ScriptedModel([{ content: 'a' }, { content: 'b' }, { content: 'c' }]);
    await model.chat(ask('think'));
    expect(model.remaining).toBe(2);
    expect(() => model.assertConsumed()).toThrow('ScriptedModel: 2 of 3 scripted step(s) were never used');
  });

  it('calls function steps with the request and the call index', async () => {
    const model = new ScriptedModel([
      { content: 'first' },
      async (request, callIndex) => ({
        content: `${request.purpose} #${callIndex}: ${request.messages.at(-1)!.content}`,
        parsed: { echoed: true },
      }),
    ]);
    await model.chat(ask('plan'));
    const response = await model.chat(ask('summarize', 'results'));
    expect(response.content).toBe('summarize #1: results');
    expect(response.parsed).toEqual({ echoed: true });
  });

  it('throws error steps as they are, and still counts the call', async () => {
    const failure = new Error('model exploded');
    const model = new ScriptedModel([failure, { content: 'recovered' }]);
    await expect(model.chat(ask('think'))).rejects.toBe(failure);
    expect((await model.chat(ask('think'))).content).toBe('recovered');
    model.assertConsumed();
  });

  it('honours an aborted signal', async () => {
    const model = new ScriptedModel([{ content: 'never' }]);
    const controller = new AbortController();
    controller.abort(new Error('stop now'));
    await expect(model.chat(ask('think'), controller.signal)).rejects.toThrow('stop now');
  });

  it('keeps scripted usage, finish reason and ids', async () => {
    const usage = { inputTokens: 5, outputTokens: 7, cachedInputTokens: 1, reasoningTokens: 0, estimated: false };
    const model = new ScriptedModel(
      [{ toolCalls: [{ id: 'mine', name: 't', arguments: '{"a' }], finishReason: 'length', usage }],
      { modelName: 'fake-4' },
    );
    const response = await model.chat(ask('think'));
    expect(response).toMatchObject({
      finishReason: 'length',
      usage,
      model: 'fake-4',
      toolCalls: [{ id: 'mine', arguments: '{"a' }],
    });
  });
});
