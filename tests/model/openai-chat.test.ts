// OpenAIChatModel, non-streamed: what it sends, what it reads back, usage with and without the server's numbers.
import { describe, expect, it } from 'vitest';
import { OpenAIChatModel, type OpenAIChatModelOptions } from '../../src/model/openai-model.js';
import type { ChatRequest, ToolDefinition } from '../../src/model/types.js';
import { historyMessages } from '../../src/sessions/render.js';
import { useLoopbackServer } from '../support/loopback-model.js';

const calculator: ToolDefinition = {
  name: 'calculator',
  description: 'Evaluates an arithmetic expression',
  parameters: {
    type: 'object',
    properties: { expression: { type: 'string' } },
    required: ['expression'],
    additionalProperties: false,
  },
  strict: true,
};

function ask(text: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return {
    purpose: 'think',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: text },
    ],
    ...extra,
  };
}

const loopback = useLoopbackServer({ apiKey: 'sk-test-secret-0001' });

const model = (options: Partial<OpenAIChatModelOptions> = {}) => loopback.model(options);

describe('OpenAIChatModel.chat', () => {
  it('returns the content, the model name, usage and latency', async () => {
    loopback.server.replyWith({ content: 'Paris', model: 'test-model-2024', usage: { input: 21, output: 2 } });
    const response = await model().chat(ask('Capital of France?'));
    expect(response.content).toBe('Paris');
    expect(response.toolCalls).toEqual([]);
    expect(response.finishReason).toBe('stop');
    expect(response.model).toBe('test-model-2024');
    expect(response.usage).toEqual({
      inputTokens: 21,
      outputTokens: 2,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      estimated: false,
    });
    expect(response.latencyMs).toBeGreaterThanOrEqual(0);
    const request = loopback.server.requests[0]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test-secret-0001');
    expect(request.body.model).toBe('test-model');
    expect(request.body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Capital of France?' },
    ]);
  });

  it('sends the history messages without the records they carry', async () => {
    loopback.server.replyWith({ content: '52' });
    const history = historyMessages('Turn 1 answer: 42', [
      { task: 'What is 6 * 7?', answer: '42', tools: ['calculator(6 * 7) → 42'] },
    ]);
    await model().chat(
      ask('Add 10 to that', {
        messages: [
          { role: 'system', content: 'You are terse.' },
          ...history,
          { role: 'user', content: 'Add 10 to that' },
        ],
      }),
    );
    const sent = loopback.server.requests[0]!.body.messages;
    expect(sent.map((message) => message.role)).toEqual([
      'system',
      'assistant',
      'user',
      'assistant',
      'assistant',
      'user',
    ]);
    expect(loopback.server.requests[0]!.rawBody).not.toContain('"history"');
  });

  it('reads cached input and reasoning tokens', async () => {
    loopback.server.replyWith({ content: 'ok', usage: { input: 1200, output: 40, cached: 1024, reasoning: 16 } });
    const response = await model().chat(ask('hi'));
    expect(response.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 40,
      cachedInputTokens: 1024,
      reasoningTokens: 16,
      estimated: false,
    });
  });

  it('estimates usage when the server sends none, and says so', async () => {
    loopback.server.replyWith({ content: 'The answer is forty-two, as everybody knows.', usage: null });
    const response = await model().chat(ask('What is the answer to everything? Please explain at some length.'));
    expect(response.usage.estimated).toBe(true);
    expect(response.usage.inputTokens).toBeGreaterThan(10);
    expect(response.usage.outputTokens).toBeGreaterThan(5);
    expect(response.usage.outputTokens).toBeLessThan(30);
  });

  it('sends tools, tool choice, temperature and the output cap, and reads tool calls', async () => {
    loopback.server.replyWithToolCalls([{ id: 'call_abc', name: 'calculator', arguments: '{"expression":"2+2"}' }]);
    const response = await model({ temperature: 0.3 }).chat(
      ask('2+2?', { tools: [calculator], toolChoice: { name: 'calculator' }, maxOutputTokens: 64 }),
    );
    expect(response.toolCalls).toEqual([{ id: 'call_abc', name: 'calculator', arguments: '{"expression":"2+2"}' }]);
    expect(response.finishReason).toBe('tool_calls');
    const body = loopback.server.lastBody!;
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'calculator',
          description: calculator.description,
          parameters: calculator.parameters,
          strict: true,
        },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'calculator' } });
    expect(body.temperature).toBe(0.3);
    expect(body.max_tokens).toBe(64);
    expect(body.max_completion_tokens).toBeUndefined();
  });

  it('a request temperature wins over the model default', async () => {
    loopback.server.replyWith({ content: 'ok' });
    await model({ temperature: 0.9 }).chat(ask('hi', { temperature: 0 }));
    expect(loopback.server.lastBody!.temperature).toBe(0);
  });

  it('leaves tool_choice out when asked (Ollama rejects it)', async () => {
    loopback.server.replyWith({ content: 'ok' });
    await model({ sendToolChoice: false }).chat(ask('hi', { tools: [calculator], toolChoice: 'required' }));
    expect(loopback.server.lastBody!.tools).toHaveLength(1);
    expect('tool_choice' in loopback.server.lastBody!).toBe(false);
  });

  it('sends no tools for tool choice "none" when tool_choice cannot be sent', async () => {
    loopback.server.replyWith({ content: 'ok' });
    await model({ sendToolChoice: false }).chat(ask('hi', { tools: [calculator], toolChoice: 'none' }));
    expect(loopback.server.lastBody!.tools).toBeUndefined();
  });

  it('counts tool calls announced with finish_reason "stop"', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"1+1"}' }], {
      finishReason: 'stop',
    });
    const response = await model().chat(ask('1+1?', { tools: [calculator] }));
    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls.map((call) => call.name)).toEqual(['calculator']);
  });

  it('gives tool calls without an id one of our own', async () => {
    loopback.server.raw(
      200,
      JSON.stringify({
        model: 'm',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ type: 'function', function: { name: 'calculator', arguments: '{}' } }],
            },
          },
        ],
      }),
    );
    const response = await model({ newId: () => 'generated-1' }).chat(ask('x', { tools: [calculator] }));
    expect(response.toolCalls).toEqual([{ id: 'generated-1', name: 'calculator', arguments: '{}' }]);
    expect(response.usage.estimated).toBe(true);
  });

  it('sends the conversation with tool calls and tool results in protocol form', async () => {
    loopback.server.replyWith({ content: '4' });
    await model().chat({
      purpose: 'think',
      messages: [
        { role: 'user', content: '2+2?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"2+2"}' }],
        },
        { role: 'tool', toolCallId: 'call_1', name: 'calculator', content: '4' },
      ],
    });
    expect(loopback.server.lastBody!.messages).toEqual([
      { role: 'user', content: '2+2?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '4' },
    ]);
  });

  it('maps content_filter and unknown finish reasons', async () => {
    loopback.server
      .replyWith({ content: '', finishReason: 'content_filter' })
      .replyWith({ content: 'x', finishReason: 'something_new' });
    expect((await model().chat(ask('a'))).finishReason).toBe('content_filter');
    expect((await model().chat(ask('b'))).finishReason).toBe('other');
  });

  it('names its provider and endpoint', () => {
    const local = model();
    expect(local.provider).toBe('openai_compatible');
    expect(local.endpoint).toEqual({ address: '127.0.0.1', port: Number(new URL(loopback.server.url).port) });
    const openai = new OpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-x' });
    expect(openai.provider).toBe('openai');
    expect(openai.endpoint).toEqual({ address: 'api.openai.com', port: 443 });
    expect(openai.modelName).toBe('gpt-4o-mini');
  });

  it('uses max_completion_tokens on OpenAI itself', async () => {
    loopback.server.replyWith({ content: 'ok' });
    // A provider named "openai" behaves as OpenAI does, whatever the host: lets us check the field locally.
    await model({ provider: 'openai' }).chat(ask('hi', { maxOutputTokens: 10 }));
    expect(loopback.server.lastBody!.max_completion_tokens).toBe(10);
    expect(loopback.server.lastBody!.max_tokens).toBeUndefined();
  });
});
