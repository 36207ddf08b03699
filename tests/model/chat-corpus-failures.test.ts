// The failures users of real providers met, each on a recorded answer (tests/fixtures/providers/chat-completions): what
// goes back to the server on the next request, and a JSON answer to a streamed request.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import type { ChatMessage, ChatRequest, ChatStreamEvent } from '../../src/model/types.js';
import { recording } from '../support/chat-corpus.js';
import { startReplayServer, type ReplayServer } from '../support/replay-server.js';

let server: ReplayServer;
let other: ReplayServer;
beforeEach(async () => {
  [server, other] = await Promise.all([startReplayServer(), startReplayServer()]);
});
afterEach(() => Promise.all([server.close(), other.close()]));

const on = (replay: ReplayServer) =>
  new OpenAIChatModel({ baseUrl: replay.url('/v1'), model: 'recorded', apiKey: 'sk-test', maxRetries: 0 });
const ask: ChatMessage = { role: 'user', content: 'What is the weather in San Francisco?' };
type WireMessage = {
  role: string;
  reasoning_content?: string;
  tool_calls?: Array<{ function: { arguments: string } }>;
};
const sentMessages = (replay: ReplayServer, index: number) =>
  (replay.requests[index]!.body as { messages: WireMessage[] }).messages;

/** The assistant message a run appends for a reply (think does the same through assistantMessage). */
async function toolTurn(model: OpenAIChatModel): Promise<ChatMessage[]> {
  server.queue(recording('deepseek/tool-call.json').answer);
  const reply = await model.chat({ purpose: 'think', messages: [ask] });
  const call = reply.toolCalls[0]!;
  return [
    {
      role: 'assistant',
      content: reply.content,
      toolCalls: reply.toolCalls,
      reasoning: reply.reasoning!,
      replay: reply.replay!,
    },
    { role: 'tool', toolCallId: call.id, name: call.name, content: '7 °C, cloudy' },
  ];
}

describe('what goes back to the server', () => {
  it("DeepSeek thinking mode: this turn's tool-call message carries its reasoning_content back", async () => {
    const model = on(server);
    const turn = await toolTurn(model);
    server.queue(recording('deepseek/text.json').answer);
    await model.chat({ purpose: 'think', messages: [ask, ...turn] });
    expect(sentMessages(server, 1)[1]!.reasoning_content).toBe(
      "The user asks about weather in San Francisco. I'll call the weather tool.",
    );
  });

  it("an earlier turn's reasoning stays home, and so does reasoning written by another server", async () => {
    const turn = await toolTurn(on(server));
    const answered: ChatMessage[] = [
      ask,
      ...turn,
      { role: 'assistant', content: 'It is 7 °C.' },
      { role: 'user', content: 'And tomorrow?' },
    ];
    server.queue(recording('deepseek/text.json').answer);
    await on(server).chat({ purpose: 'think', messages: answered });
    expect(sentMessages(server, 1).some((message) => 'reasoning_content' in message)).toBe(false);
    other.queue(recording('deepseek/text.json').answer);
    await on(other).chat({ purpose: 'think', messages: [ask, ...turn] });
    expect(sentMessages(other, 0).some((message) => 'reasoning_content' in message)).toBe(false);
  });

  it('a tool call written with empty arguments goes back as {} (DashScope answers 400 to "")', async () => {
    server.queue(recording('alibaba/tool-call-qwen3-max.json').answer);
    const messages: ChatMessage[] = [
      ask,
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'weather', arguments: '' }] },
      { role: 'tool', toolCallId: 'call_1', name: 'weather', content: 'sunny' },
    ];
    await on(server).chat({ purpose: 'think', messages });
    expect(sentMessages(server, 0)[1]!.tool_calls![0]!.function.arguments).toBe('{}');
  });
});

describe('a JSON answer to a streamed request', () => {
  it('is the whole reply, and the listener hears its reasoning, text and tool calls', async () => {
    server.queue(recording('deepseek/tool-call.json').answer);
    const events: ChatStreamEvent[] = [];
    const request: ChatRequest = { purpose: 'think', messages: [ask] };
    const reply = await on(server).chatStream(request, (event) => events.push(event));
    expect((server.requests[0]!.body as { stream?: boolean }).stream).toBe(true);
    expect(reply.toolCalls.map((call) => call.name)).toEqual(['weather']);
    expect(events.map((event) => event.type)).toEqual(['reasoning', 'tool_call']);
  });
});
