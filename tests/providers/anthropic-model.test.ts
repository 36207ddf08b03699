// AnthropicModel alone, on real recordings: a tool loop whose second request sends the signed thinking back first,
// with the tool result, and with cache_control on the system prompt, the tools and the newest message.
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicModel } from '../../src/model/anthropic-model.js';
import type { ChatMessage, ChatRequest } from '../../src/model/types.js';
import { startRecordedServer, type RecordedServer } from '../support/recorded-server.js';
import { replyOf } from './corpus.js';
import { costUsd, priceFor } from '../../src/model/model-prices.js';

let server: RecordedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Block = Record<string, unknown> & { type: string };
interface SentBody {
  system: Block[];
  tools: Block[];
  messages: Array<{ role: string; content: Block[] }>;
  max_tokens: number;
  thinking?: unknown;
  tool_choice?: unknown;
}

const tools: ChatRequest['tools'] = [
  { name: 'lookup', description: 'looks up', parameters: { type: 'object', properties: {} }, strict: false },
  {
    name: 'get_user_country',
    description: 'the country',
    parameters: { type: 'object', properties: {} },
    strict: false,
  },
];

describe('AnthropicModel', () => {
  it('sends signed thinking back verbatim before its tool_use, with the tool result and three cache breakpoints', async () => {
    server = await startRecordedServer([
      replyOf('anthropic', { file: 'pydantic-ai/test_anthropic_tool_with_thinking.0.json' }),
      replyOf('anthropic', { file: 'pydantic-ai/test_anthropic_tool_with_thinking.1.json' }),
    ]);
    const model = new AnthropicModel({
      model: 'claude-test',
      baseUrl: server.url,
      apiKey: 'sk-ant-test',
      thinkingBudgetTokens: 1024,
    });
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'What is the largest city in the user country?' },
    ];
    const first = await model.chat({ messages, tools, toolChoice: 'auto', purpose: 'think' });
    expect(first.toolCalls).toEqual([
      { id: 'toolu_01YGzqpRE16Vricda3Aqcejo', name: 'get_user_country', arguments: '{}' },
    ]);
    expect(first.reasoning).toMatch(/^The user is asking about the largest city/);
    const firstBody = server.requests[0]!.body as SentBody;
    expect(firstBody.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(firstBody.system).toEqual([
      { type: 'text', text: 'You are helpful.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(firstBody.tools.map((tool) => tool.cache_control)).toEqual([undefined, { type: 'ephemeral' }]);
    expect(firstBody.messages.at(-1)!.content.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });

    const assistant: ChatMessage = {
      role: 'assistant',
      content: first.content,
      toolCalls: first.toolCalls,
      reasoning: first.reasoning!,
      replay: first.replay!,
    };
    messages.push(assistant, {
      role: 'tool',
      toolCallId: first.toolCalls[0]!.id,
      name: 'get_user_country',
      content: 'Mexico',
    });
    const second = await model.chat({ messages, tools, purpose: 'think' });
    expect(second.content).toMatch(/Mexico City/);
    const sent = (server.requests[1]!.body as SentBody).messages;
    const recorded = (
      replyOf('anthropic', { file: 'pydantic-ai/test_anthropic_tool_with_thinking.0.json' }).body as {
        content: Block[];
      }
    ).content;
    expect(sent[1]).toEqual({
      role: 'assistant',
      content: [
        recorded[0],
        { type: 'text', text: first.content },
        { type: 'tool_use', id: 'toolu_01YGzqpRE16Vricda3Aqcejo', name: 'get_user_country', input: {} },
      ],
    });
    expect(sent[2]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_01YGzqpRE16Vricda3Aqcejo',
          content: 'Mexico',
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
    // The earlier breakpoint moved: only the newest message carries one.
    expect(sent[0]!.content.at(-1)!.cache_control).toBeUndefined();
  });

  it("sends no other provider's reasoning, and maps tool choice, max tokens and arguments that are not JSON", async () => {
    server = await startRecordedServer([replyOf('anthropic', { file: 'vercel-ai/anthropic-text.json' })]);
    const model = new AnthropicModel({ model: 'claude-test', baseUrl: server.url, promptCaching: false });
    await model.chat({
      messages: [
        { role: 'user', content: 'one' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_1', name: 'lookup', arguments: 'not json' }],
          replay: { provider: 'openai-responses', items: [{ type: 'reasoning', id: 'rs_1' }] },
        },
        { role: 'tool', toolCallId: 'call_1', name: 'lookup', content: 'found' },
        { role: 'user', content: 'and now?' },
      ],
      tools,
      toolChoice: 'required',
      maxOutputTokens: 300,
      purpose: 'think',
    });
    const body = server.requests[0]!.body as SentBody;
    expect(body.max_tokens).toBe(300);
    expect(body.tool_choice).toEqual({ type: 'any' });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'one' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'lookup', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'found' },
          { type: 'text', text: 'and now?' },
        ],
      },
    ]);
    expect(JSON.stringify(body)).not.toContain('cache_control');
  });

  it('reads a JSON body sent to a streamed request as the whole reply, passed on as events', async () => {
    server = await startRecordedServer([replyOf('anthropic', { file: 'vercel-ai/anthropic-clear-thinking.1.json' })]);
    const model = new AnthropicModel({ model: 'claude-test', baseUrl: server.url });
    const events: string[] = [];
    const reply = await model.chatStream({ messages: [{ role: 'user', content: 'hi' }], purpose: 'think' }, (event) =>
      events.push(event.type),
    );
    expect([reply.content, reply.reasoning]).toEqual(['925 ÷ 5 = 185', '925 divided by 5 = 185']);
    expect(events).toEqual(['reasoning', 'text']);
  });

  it('names a server error in one line without the key, and retries an overloaded server', async () => {
    server = await startRecordedServer([
      {
        status: 529,
        body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        headers: { 'retry-after': '0' },
      },
      replyOf('anthropic', { file: 'vercel-ai/anthropic-text.json' }),
      {
        status: 401,
        body: {
          type: 'error',
          error: { type: 'authentication_error', message: 'invalid x-api-key sk-ant-secret-1234567890' },
        },
      },
    ]);
    const model = new AnthropicModel({ model: 'claude-test', baseUrl: server.url, apiKey: 'sk-ant-secret-1234567890' });
    const reply = await model.chat({ messages: [{ role: 'user', content: 'hi' }], purpose: 'think' });
    expect(reply.content).toMatch(/^Hello!/);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-ant-secret-1234567890');
    const error = (await model
      .chat({ messages: [{ role: 'user', content: 'hi' }], purpose: 'think' })
      .catch((caught: unknown) => caught as Error)) as Error;
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expect(error.message).toMatch(/^http:\/\/127\.0\.0\.1:\d+ answered 401: invalid x-api-key/);
    expect(error.message).not.toContain('sk-ant-secret-1234567890');
  });

  it('keeps cache writes apart in usage and bills them at the cache-write rate, cache reads at the read rate', async () => {
    server = await startRecordedServer([
      replyOf('anthropic', { file: 'pydantic-ai/test_anthropic_cache_real_api.1.json' }),
    ]);
    const model = new AnthropicModel({ model: 'claude-sonnet-4-5-20250929', baseUrl: server.url });
    const reply = await model.chat({ messages: [{ role: 'user', content: 'Python?' }], purpose: 'think' });
    // The recording: input_tokens 3, cache_read_input_tokens 1111, cache_creation_input_tokens 418, output_tokens 33.
    expect(reply.usage).toEqual({
      inputTokens: 3 + 1111 + 418,
      cachedInputTokens: 1111,
      cacheWriteInputTokens: 418,
      outputTokens: 33,
      reasoningTokens: 0,
      estimated: false,
    });
    const price = priceFor(reply.model)!;
    expect(price).toMatchObject({ input: 3, cachedInput: 0.3, cacheWriteInput: 3.75, output: 15 });
    expect(costUsd(reply.usage, price)).toBeCloseTo((3 * 3 + 1111 * 0.3 + 418 * 3.75 + 33 * 15) / 1e6, 12);
  });
});
