import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  ModelError,
  runPipeline,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamEvent,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { otelRunTracer } from '../../src/tracing/otel-tracer.js';
import { traceModel } from '../../src/tracing/traced-model.js';
import { toolSpanWrapper } from '../../src/tracing/tool-spans.js';
import { agentPipeline, lookupRegistry } from './fixtures.js';
import { enableAsyncContext, findSpan, makeTracing } from './span-tree.js';

let disableContext: () => void;
beforeAll(() => void (disableContext = enableAsyncContext()));
afterAll(() => disableContext());

const secretTask = 'Use Authorization: Bearer abcdefgh12345678 and key sk-abcdefghijklmnopqrstuvwx';
const request: ChatRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: secretTask },
  ],
  purpose: 'think',
  temperature: 0.2,
  maxOutputTokens: 256,
};
const response: ChatResponse = {
  content: '',
  toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x","api_key":"hunter2"}' }],
  finishReason: 'tool_calls',
  usage: { inputTokens: 120, outputTokens: 30, cachedInputTokens: 64, reasoningTokens: 5, estimated: false },
  model: 'gpt-test-2025-01-01',
  latencyMs: 12,
};

/** A network-like model with an endpoint and a stream method. */
function fakeModel(outcome: ChatResponse | Error): ChatModel & { streamed: ChatStreamEvent[] } {
  const reply = async () => {
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  const streamed: ChatStreamEvent[] = [];
  return {
    provider: 'openai',
    modelName: 'gpt-test',
    endpoint: { address: 'api.example.com', port: 443 },
    streamed,
    chat: reply,
    async chatStream(_request, onEvent) {
      onEvent({ type: 'text', delta: 'hi' });
      return reply();
    },
  };
}

describe('traceModel', () => {
  it('opens a chat CLIENT span with the GenAI attributes and no content by default', async () => {
    const tracing = makeTracing();
    const model = traceModel(fakeModel(response), { tracer: tracing.tracer });
    expect(model.provider).toBe('openai');
    expect(model.endpoint).toEqual({ address: 'api.example.com', port: 443 });
    await expect(model.chat(request)).resolves.toBe(response);
    const span = findSpan(tracing.spans(), 'chat gpt-test');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 256,
      'server.address': 'api.example.com',
      'server.port': 443,
      'stageloop.purpose': 'think',
      'gen_ai.response.model': 'gpt-test-2025-01-01',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 64,
      'gen_ai.usage.reasoning.output_tokens': 5,
    });
    expect(JSON.stringify(span.attributes)).not.toContain('sk-');
  });

  it('wraps chatStream too, passing the events through', async () => {
    const tracing = makeTracing();
    const model = traceModel(fakeModel(response), { tracer: tracing.tracer });
    const events: ChatStreamEvent[] = [];
    await model.chatStream!(request, (event) => events.push(event));
    expect(events).toEqual([{ type: 'text', delta: 'hi' }]);
    expect(findSpan(tracing.spans(), 'chat gpt-test').attributes['gen_ai.request.stream']).toBe(true);
    expect(traceModel(new ScriptedModel([])).chatStream).toBeUndefined();
  });

  it('sets error.type to the ModelError kind, status ERROR and an exception event, and rethrows the same error', async () => {
    const tracing = makeTracing();
    const error = new ModelError('rate_limited', 'slow down', { status: 429 });
    await expect(traceModel(fakeModel(error), { tracer: tracing.tracer }).chat(request)).rejects.toBe(error);
    const span = findSpan(tracing.spans(), 'chat gpt-test');
    expect(span.attributes['error.type']).toBe('rate_limited');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'slow down' });
    expect(span.events.map((event) => event.attributes?.['exception.type'])).toEqual(['ModelError']);
  });

  it('records messages when asked, in the GenAI shape, redacted', async () => {
    const tracing = makeTracing();
    await traceModel(fakeModel(response), { tracer: tracing.tracer, recordContent: true }).chat(request);
    const attributes = findSpan(tracing.spans(), 'chat gpt-test').attributes;
    expect(JSON.parse(String(attributes['gen_ai.system_instructions']))).toEqual([
      { type: 'text', content: 'Be brief.' },
    ]);
    expect(JSON.parse(String(attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Use Authorization: Bearer [REDACTED] and key [REDACTED]' }] },
    ]);
    expect(JSON.parse(String(attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call_1', name: 'lookup', arguments: { q: 'x', api_key: '[REDACTED]' } }],
        finish_reason: 'tool_calls',
      },
    ]);
    expect(JSON.stringify(attributes)).not.toMatch(/hunter2|abcdefgh12345678|sk-abc/);
  });
});

describe('trace content across a run', () => {
  const script = () =>
    new ScriptedModel([
      { toolCalls: [{ name: 'lookup', arguments: '{"q":"password=hunter2"}' }] },
      { content: 'answer with sk-abcdefghijklmnopqrstuvwx' },
    ]);
  const run = (recordContent: boolean) => {
    const tracing = makeTracing();
    const { tracer } = tracing;
    const done = runPipeline(
      agentPipeline(),
      { task: secretTask },
      {
        deps: {
          tracer: otelRunTracer({ tracer, recordContent }),
          model: traceModel(script(), { tracer, recordContent }),
          tools: lookupRegistry(
            (query) => `result for ${query} Authorization: Bearer abcdefgh12345678`,
            toolSpanWrapper({ tracer, recordContent }),
          ),
        },
      },
    );
    return done.then(() => tracing.spans());
  };
  const contentKeys = [
    'gen_ai.input.messages',
    'gen_ai.output.messages',
    'gen_ai.system_instructions',
    'gen_ai.tool.call.arguments',
    'gen_ai.tool.call.result',
  ];

  it('records no message, argument or result content by default', async () => {
    const spans = await run(false);
    for (const span of spans)
      for (const key of contentKeys) expect(span.attributes[key], `${span.name} ${key}`).toBeUndefined();
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain('hunter2');
  });

  it('records content when asked, with secrets redacted everywhere', async () => {
    const spans = await run(true);
    const tool = findSpan(spans, 'execute_tool lookup');
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({ q: 'password=[REDACTED]' });
    expect(tool.attributes['gen_ai.tool.call.result']).toBe(
      'result for password=[REDACTED] Authorization: Bearer [REDACTED]',
    );
    const root = findSpan(spans, 'invoke_agent test-agent');
    expect(JSON.parse(String(root.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'answer with [REDACTED]' }] },
    ]);
    const everything = JSON.stringify(spans.map((span) => span.attributes));
    expect(everything).toContain('gen_ai.input.messages');
    expect(everything).not.toMatch(/hunter2|abcdefgh12345678|sk-abc/);
  });
});
