// aiSdkModel with a real AI SDK provider package (@ai-sdk/openai-compatible, spec v3) against a loopback server
// replaying DeepSeek's recorded replies (pydantic-ai cassettes): text, reasoning, tool calls, streaming, errors.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import { aiSdkModel } from '../../src/model/ai-sdk-model.js';
import type { ChatMessage, ChatRequest, ChatStreamEvent } from '../../src/model/types.js';
import { startRecordedServer, type RecordedReply, type RecordedServer } from '../support/recorded-server.js';
import { readFileSync } from 'node:fs';

let server: RecordedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const recording = (name: string): RecordedReply => {
  const path = new URL(`../fixtures/providers/ai-sdk/pydantic-ai/${name}`, import.meta.url);
  return JSON.parse(readFileSync(path, 'utf8')) as RecordedReply;
};

const deepseek = (url: string) =>
  createOpenAICompatible({ name: 'deepseek', baseURL: `${url}/v1`, apiKey: 'sk-test' }).chatModel('deepseek-reasoner');

const tools: ChatRequest['tools'] = ['load_capability', 'get_player_name', 'roll_die'].map((name) => ({
  name,
  description: name,
  parameters: { type: 'object', properties: {} },
  strict: false,
}));

interface SentMessage {
  role: string;
  content?: string | null;
  reasoning_content?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}

describe('aiSdkModel', () => {
  it('runs a tool loop with DeepSeek reasoning through @ai-sdk/openai-compatible, the reasoning kept for that provider', async () => {
    const name = 'test_deepseek_deferred_capability_with_thinking';
    server = await startRecordedServer([0, 1, 2].map((index) => recording(`${name}.${index}.json`)));
    const model = aiSdkModel(deepseek(server.url));
    expect(model.provider).toBe('deepseek.chat');
    expect(model.modelName).toBe('deepseek-reasoner');
    const messages: ChatMessage[] = [{ role: 'user', content: 'Roll a die; I guess 4.' }];
    for (let turn = 0; turn < 3; turn++) {
      const reply = await model.chat({ messages, tools, purpose: 'think' });
      expect(reply.reasoning).toBeTruthy();
      expect(reply.replay?.provider).toBe('ai-sdk:deepseek.chat');
      expect(reply.usage.estimated).toBe(false);
      messages.push({ role: 'assistant', content: reply.content, toolCalls: reply.toolCalls, replay: reply.replay! });
      if (turn === 2) {
        expect(reply.finishReason).toBe('stop');
        expect(reply.content).toMatch(/Congratulations, Anne/);
        break;
      }
      expect(reply.finishReason).toBe('tool_calls');
      for (const call of reply.toolCalls)
        messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: 'ok' });
    }
    const sent = (server.requests[1]!.body as { messages: SentMessage[] }).messages;
    const assistant = sent.find((message) => message.role === 'assistant')!;
    expect(assistant.tool_calls?.[0]?.function.name).toBe('load_capability');
    // The kept reasoning reached the provider package, which sends DeepSeek its reasoning_content back.
    expect(assistant.reasoning_content).toMatch(/^The user wants to play a dice game/);
    expect(sent.at(-1)).toMatchObject({ role: 'tool', content: 'ok' });
  });

  it('streams text and reasoning as events, with usage in the one meaning (reasoning inside output)', async () => {
    server = await startRecordedServer([recording('test_deepseek_model_thinking_stream.0.json')]);
    const model = aiSdkModel(deepseek(server.url));
    const events: ChatStreamEvent[] = [];
    const reply = await model.chatStream!({ messages: [{ role: 'user', content: 'Hi' }], purpose: 'think' }, (event) =>
      events.push(event),
    );
    const text = events.flatMap((event) => (event.type === 'text' ? [event.delta] : [])).join('');
    const reasoning = events.flatMap((event) => (event.type === 'reasoning' ? [event.delta] : [])).join('');
    expect(text).toBe(reply.content);
    expect(reasoning).toBe(reply.reasoning);
    expect(reply.usage).toEqual({
      inputTokens: 6,
      outputTokens: 212,
      cachedInputTokens: 0,
      reasoningTokens: 198,
      estimated: false,
    });
  });

  it('names an error of the server in one line, and refuses a model of another specification', async () => {
    server = await startRecordedServer([
      { status: 400, body: { error: { message: 'Model Not Exist', type: 'invalid_request_error' } } },
    ]);
    const model = aiSdkModel(deepseek(server.url));
    await expect(model.chat({ messages: [{ role: 'user', content: 'Hi' }], purpose: 'think' })).rejects.toThrow(
      /^deepseek\.chat \(deepseek-reasoner\) answered 400: Model Not Exist$/,
    );
    const old = { specificationVersion: 'v2', provider: 'x', modelId: 'y' } as unknown as Parameters<
      typeof aiSdkModel
    >[0];
    expect(() => aiSdkModel(old)).toThrow(/provider specification v3 .* got "v2"/);
  });
});
