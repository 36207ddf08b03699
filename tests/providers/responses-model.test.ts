// OpenAIResponsesModel alone, on real recordings: nothing stored at OpenAI, the encrypted reasoning item sent back
// verbatim before the call it led to, one prompt_cache_key for a whole conversation, and structured output.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OpenAIResponsesModel } from '../../src/model/openai-responses-model.js';
import type { ChatMessage, ChatRequest } from '../../src/model/types.js';
import { startRecordedServer, type RecordedServer } from '../support/recorded-server.js';
import { replyOf } from './corpus.js';

let server: RecordedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface SentBody {
  input: Array<Record<string, unknown>>;
  store?: boolean;
  include?: string[];
  prompt_cache_key?: string;
  tools?: unknown[];
  text?: unknown;
  reasoning?: unknown;
}

const tools: ChatRequest['tools'] = [
  { name: 'update_plan', description: 'plans', parameters: { type: 'object', properties: {} }, strict: false },
];

describe('OpenAIResponsesModel', () => {
  it('keeps the encrypted reasoning item and sends it back before its function call, with one cache key', async () => {
    const recorded = 'pydantic-ai/test_openai_responses_thinking_with_tool_calls';
    server = await startRecordedServer([
      replyOf('responses', { file: `${recorded}.0.json` }),
      replyOf('responses', { file: `${recorded}.1.json` }),
    ]);
    const model = new OpenAIResponsesModel({
      model: 'gpt-5',
      baseUrl: `${server.url}/v1`,
      apiKey: 'sk-test',
      reasoningEffort: 'high',
    });
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You write poems.' },
      { role: 'user', content: 'Write a poem.' },
    ];
    const first = await model.chat({ messages, tools, purpose: 'think' });
    expect(first.toolCalls.map((call) => call.name)).toEqual(['update_plan']);
    expect(first.replay?.provider).toBe('openai-responses');
    const item = first.replay!.items[0] as { type: string; encrypted_content: string; id: string };
    expect(item.type).toBe('reasoning');
    expect(item.encrypted_content.length).toBeGreaterThan(100);
    const firstBody = server.requests[0]!.body as SentBody;
    expect(firstBody.store).toBe(false);
    expect(firstBody.include).toEqual(['reasoning.encrypted_content']);
    expect(firstBody.reasoning).toEqual({ effort: 'high', summary: 'auto' });
    expect(firstBody.input).toEqual([
      { role: 'system', content: 'You write poems.' },
      { role: 'user', content: 'Write a poem.' },
    ]);

    const call = first.toolCalls[0]!;
    messages.push(
      { role: 'assistant', content: first.content, toolCalls: first.toolCalls, replay: first.replay! },
      { role: 'tool', toolCallId: call.id, name: call.name, content: 'plan noted' },
    );
    const second = await model.chat({ messages, tools, purpose: 'think' });
    expect(second.usage.cachedInputTokens).toBe(2048);
    const body = server.requests[1]!.body as SentBody;
    expect(body.input.slice(2)).toEqual([
      item,
      { type: 'function_call', call_id: call.id, name: 'update_plan', arguments: call.arguments },
      { type: 'function_call_output', call_id: call.id, output: 'plan noted' },
    ]);
    expect(body.prompt_cache_key).toMatch(/^stageloop-[0-9a-f]{32}$/);
    expect(body.prompt_cache_key).toBe(firstBody.prompt_cache_key);
  });

  it("sends no other provider's reasoning, a key of its own when given one, and a JSON schema for structured output", async () => {
    server = await startRecordedServer([replyOf('responses', { file: 'pydantic-ai/test_native_output.1.json' })]);
    const model = new OpenAIResponsesModel({
      model: 'gpt-4o',
      baseUrl: `${server.url}/v1`,
      promptCacheKey: 'session-42',
    });
    const city = z.object({ city: z.string(), country: z.string() });
    const reply = await model.chat({
      messages: [
        { role: 'user', content: 'Where?' },
        {
          role: 'assistant',
          content: 'Thinking.',
          replay: { provider: 'anthropic', items: [{ type: 'thinking', thinking: 'x', signature: 's' }] },
        },
        { role: 'user', content: 'The largest city of my country, as JSON.' },
      ],
      responseFormat: { name: 'city', schema: city },
      purpose: 'answer',
    });
    expect(reply.parsed).toEqual({ city: 'Mexico City', country: 'Mexico' });
    const body = server.requests[0]!.body as SentBody;
    expect(body.input[1]).toEqual({ role: 'assistant', content: 'Thinking.' });
    expect(body.prompt_cache_key).toBe('session-42');
    expect(body.text).toMatchObject({ format: { type: 'json_schema', name: 'city', strict: true } });
  });

  it('repairs wrong structured output once, without the tools, and counts both calls', async () => {
    const recorded = replyOf('responses', { file: 'pydantic-ai/test_native_output.1.json' });
    const base = recorded.body as { output: Array<{ content: Array<{ text: string }> }> };
    const wrong = structuredClone(base);
    wrong.output[0]!.content[0]!.text = '{"city":"Mexico City"}';
    server = await startRecordedServer([{ body: wrong }, recorded]);
    const model = new OpenAIResponsesModel({ model: 'gpt-4o', baseUrl: `${server.url}/v1` });
    const reply = await model.chat({
      messages: [{ role: 'user', content: 'The largest city of my country, as JSON.' }],
      tools: [
        { name: 'lookup', description: 'looks up', parameters: { type: 'object', properties: {} }, strict: false },
      ],
      responseFormat: { name: 'city', schema: z.object({ city: z.string(), country: z.string() }) },
      purpose: 'answer',
    });
    expect(reply.parsed).toEqual({ city: 'Mexico City', country: 'Mexico' });
    expect(reply.usage).toMatchObject({ inputTokens: 178, outputTokens: 32 });
    const repair = server.requests[1]!.body as SentBody;
    expect(repair.tools).toBeUndefined();
    expect(JSON.stringify(repair.input.at(-1))).toContain('could not be used: the JSON does not match the schema');
  });

  it('reads a cut reply as a truncation and a failed response as a server error', async () => {
    const base = replyOf('responses', { file: 'pydantic-ai/test_openai_responses_model_simple_response.0.json' })
      .body as Record<string, unknown>;
    server = await startRecordedServer([
      { body: { ...base, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } },
      {
        body: { ...base, status: 'failed', error: { code: 'server_error', message: 'The model failed.' }, output: [] },
      },
    ]);
    const model = new OpenAIResponsesModel({ model: 'gpt-4o', baseUrl: `${server.url}/v1`, maxRetries: 0 });
    const cut = await model.chat({ messages: [{ role: 'user', content: 'hi' }], purpose: 'think' });
    expect(cut.finishReason).toBe('length');
    await expect(model.chat({ messages: [{ role: 'user', content: 'hi' }], purpose: 'think' })).rejects.toThrow(
      /failed the response: The model failed\.$/,
    );
  });
});
