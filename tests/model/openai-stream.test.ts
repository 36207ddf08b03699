// OpenAIChatModel.chatStream: text and tool-call fragments assembled from SSE chunks, progress events, usage, failures.
import { describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { ModelError, type ChatRequest, type ChatStreamEvent } from '../../src/model/types.js';
import { finishChunk, textChunk, toolCallChunk, usageChunk } from '../support/chat-server.js';
import { PROMPTLY_MS } from '../support/helpers.js';
import { useLoopbackServer } from '../support/loopback-model.js';

const request: ChatRequest = {
  purpose: 'think',
  messages: [{ role: 'user', content: 'What is 12*12 and 7+5?' }],
  tools: [
    {
      name: 'calculator',
      description: 'arithmetic',
      parameters: { type: 'object', properties: { expression: { type: 'string' } } },
      strict: false,
    },
  ],
};

const loopback = useLoopbackServer({ apiKey: 'sk-test' });

const model = (options: { timeoutMs?: number } = {}) => loopback.model(options);

async function streamed(
  chatModel = model(),
): Promise<{ events: ChatStreamEvent[]; response: Awaited<ReturnType<OpenAIChatModel['chat']>> }> {
  const events: ChatStreamEvent[] = [];
  const response = await chatModel.chatStream(request, (event) => events.push(event));
  return { events, response };
}

describe('OpenAIChatModel.chatStream', () => {
  it('assembles text, reports each piece, and asks for usage', async () => {
    loopback.server.streamReply({
      content: 'Hello there, world',
      splitEvery: 4,
      usage: { input: 30, output: 5, cached: 10 },
    });
    const { events, response } = await streamed();
    expect(response.content).toBe('Hello there, world');
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({
      inputTokens: 30,
      outputTokens: 5,
      cachedInputTokens: 10,
      reasoningTokens: 0,
      estimated: false,
    });
    expect(
      events.filter((event) => event.type === 'text').map((event) => (event.type === 'text' ? event.delta : '')),
    ).toEqual(['Hell', 'o th', 'ere,', ' wor', 'ld']);
    expect(loopback.server.lastBody!.stream).toBe(true);
    expect(loopback.server.lastBody!.stream_options).toEqual({ include_usage: true });
  });

  it('joins tool-call arguments split across chunks', async () => {
    loopback.server.stream([
      toolCallChunk(0, { id: 'call_a', name: 'calculator', arguments: '' }),
      toolCallChunk(0, { arguments: '{"expr' }),
      toolCallChunk(0, { arguments: 'ession":' }),
      toolCallChunk(0, { arguments: ' "12*12"}' }),
      finishChunk('tool_calls'),
      usageChunk({ input: 50, output: 12 }),
    ]);
    const { events, response } = await streamed();
    expect(response.toolCalls).toEqual([{ id: 'call_a', name: 'calculator', arguments: '{"expression": "12*12"}' }]);
    expect(JSON.parse(response.toolCalls[0]!.arguments)).toEqual({ expression: '12*12' });
    expect(response.finishReason).toBe('tool_calls');
    expect(events).toContainEqual({
      type: 'tool_call',
      index: 0,
      id: 'call_a',
      name: 'calculator',
      argumentsDelta: '',
    });
    expect(events).toContainEqual({ type: 'tool_call', index: 0, argumentsDelta: 'ession":' });
  });

  it('keeps two parallel tool calls apart, even interleaved', async () => {
    loopback.server.stream([
      toolCallChunk(0, { id: 'call_1', name: 'calculator', arguments: '{"expression":' }),
      toolCallChunk(1, { id: 'call_2', name: 'calculator', arguments: '{"expression":' }),
      toolCallChunk(1, { arguments: '"7+5"}' }),
      toolCallChunk(0, { arguments: '"12*12"}' }),
      finishChunk('tool_calls'),
    ]);
    const { response } = await streamed();
    expect(response.toolCalls).toEqual([
      { id: 'call_1', name: 'calculator', arguments: '{"expression":"12*12"}' },
      { id: 'call_2', name: 'calculator', arguments: '{"expression":"7+5"}' },
    ]);
  });

  it('estimates usage when the stream carries none', async () => {
    loopback.server.stream([textChunk('Twelve times twelve is one hundred forty-four.'), finishChunk('stop')]);
    const { response } = await streamed();
    expect(response.usage.estimated).toBe(true);
    expect(response.usage.outputTokens).toBeGreaterThan(5);
    expect(response.usage.inputTokens).toBeGreaterThan(5);
  });

  it('treats tool calls streamed with finish_reason "stop" as tool calls', async () => {
    loopback.server.streamReply({
      toolCalls: [{ name: 'calculator', arguments: '{"expression":"1+1"}' }],
      finishReason: 'stop',
    });
    const { response } = await streamed();
    expect(response.finishReason).toBe('tool_calls');
    expect(response.toolCalls).toHaveLength(1);
  });

  it('retries a 503 before the stream starts, then streams', async () => {
    loopback.server.fail(503, { headers: { 'retry-after-ms': '5' } }).streamReply({ content: 'second try' });
    const chatModel = loopback.model({ maxRetries: 1 });
    const response = await chatModel.chatStream(request, () => undefined);
    expect(response.content).toBe('second try');
    expect(loopback.server.requests).toHaveLength(2);
  });

  it('can leave stream_options out for servers that reject it', async () => {
    loopback.server.streamReply({ content: 'ok', usage: null });
    const chatModel = new OpenAIChatModel({
      baseUrl: loopback.server.url,
      model: 'test-model',
      maxRetries: 0,
      streamUsage: false,
    });
    await chatModel.chatStream(request, () => undefined);
    expect(loopback.server.lastBody!.stream).toBe(true);
    expect('stream_options' in loopback.server.lastBody!).toBe(false);
  });

  it('fails with invalid_response on a chunk that is not JSON', async () => {
    loopback.server.stream([textChunk('Hel'), '{"choices": [ this is not json']);
    const error = await model()
      .chatStream(request, () => undefined)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).kind).toBe('invalid_response');
  });

  it('fails with server when the stream carries an error object', async () => {
    loopback.server.stream([textChunk('Hel'), { error: { message: 'model overloaded' } }]);
    const error = (await model()
      .chatStream(request, () => undefined)
      .catch((caught: unknown) => caught)) as ModelError;
    expect(error.kind).toBe('server');
    expect(error.message).toContain('model overloaded');
  });

  it('times out when the stream goes silent', async () => {
    loopback.server.stream([textChunk('Hel')], { hang: true });
    const started = Date.now();
    const error = (await model({ timeoutMs: 300 })
      .chatStream(request, () => undefined)
      .catch((caught: unknown) => caught)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error.kind).toBe('timeout');
    // Below the loopback model's default timeout of 2 s: the 300 ms given is the one that fired.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('returns at once on an abort in the middle of a stream, not at its 60 s timeout', async () => {
    loopback.server.stream([textChunk('Hel')], { hang: true });
    const controller = new AbortController();
    let abortedAt = 0;
    const pending = model({ timeoutMs: 60_000 }).chatStream(
      request,
      (event) => {
        if (event.type === 'text') setImmediate(() => ((abortedAt = Date.now()), controller.abort()));
      },
      controller.signal,
    );
    const error = (await pending.catch((caught: unknown) => caught)) as ModelError;
    expect(error.kind).toBe('aborted');
    expect(Date.now() - abortedAt).toBeLessThan(PROMPTLY_MS);
  });
});
