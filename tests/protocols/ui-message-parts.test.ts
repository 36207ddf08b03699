// The UI message stream's newer parts, read by the AI SDK 6 client (DefaultChatTransport + readUIMessageStream) and, for
// the parts only AI SDK 7 reads (reset-step, tool-approval-response), as raw chunks after `aiSdk: 7` in the body.
import { describe, expect, it } from 'vitest';
import { readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from 'ai';
import { chat } from './ui-chat-client.js';
import { reactPipeline } from '../../pipelines/index.js';
import { ChunkWriter, type AiSdkMajor } from '../../src/server/protocols/ui-message-chunks.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { streamRun } from '../../src/stream/stream-run.js';
import { withApproval } from '../../stages/pipeline-policies.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';
import { loopbackModelEnv, useServes, type TestServe } from '../server/serve-support.js';
import { streamWordByWord } from '../stream/word-stream.js';

const serves = useServes();
const loopback = useLoopbackServer({ timeoutMs: 10_000 });
const calculatorCall = { name: 'calculator', arguments: JSON.stringify({ expression: '17 * 23 + 4' }), id: 'call_a' };
const question = { id: 'm1', role: 'user' as const, parts: [{ type: 'text' as const, text: 'What is 17 * 23 + 4?' }] };

/** The chunks of POST /v1/chat as sent (no client parsing them). */
async function rawChunks(serve: TestServe, body: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  const response = await serve.call('/v1/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [question], ...body }),
  });
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

/** A real run's events through the chunk writer, as the route writes them. */
async function chunksOfRun(stream: ReturnType<typeof streamRun>, client: AiSdkMajor) {
  const writer = new ChunkWriter(client);
  const chunks: Array<Record<string, unknown> & { type: string }> = [];
  for await (const event of stream as AsyncIterable<RunEvent>) chunks.push(...writer.chunksOf(event));
  chunks.push(...writer.endChunks(await stream.result));
  return chunks;
}

async function messageOf(chunks: Array<Record<string, unknown>>): Promise<UIMessage> {
  const schema = uiMessageChunkSchema();
  for (const chunk of chunks) expect((await schema.validate!(chunk)).success, JSON.stringify(chunk)).toBe(true);
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as UIMessageChunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream })) message = snapshot;
  return message!;
}

/** A reply that writes a sentence and calls the calculator, then the answer. */
function queuePreambleThenAnswer(): void {
  loopback.server.streamReply(
    { content: 'Let me calculate that first. ', toolCalls: [calculatorCall] },
    { delayMs: 1 },
  );
  loopback.server.streamReply({ content: 'The answer is 395.', splitEvery: 4 });
}

/** A run whose calculator call a person refuses, with a message. */
function refusedRun(tools: ReturnType<typeof testTools>) {
  loopback.server.streamReply({ content: '', toolCalls: [calculatorCall] }, { delayMs: 1 });
  loopback.server.streamReply({ content: 'I was not allowed to calculate.' }, { delayMs: 1 });
  return streamRun(
    withApproval(reactPipeline(), { tools: ['calculator'], registry: tools }),
    { task: 'What is 17 * 23 + 4?' },
    { deps: { model: loopback.model(), tools, approve: async () => ({ approve: false, message: 'not today' }) } },
  );
}

const textOf = (message: UIMessage) => message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : []));

describe('the UI message stream for an AI SDK 6 client', () => {
  it('streams the answer word by word, the tool input in pieces, usage as message metadata after each step', async () => {
    loopback.server.streamReply({ content: '', toolCalls: [calculatorCall] }, { delayMs: 1 });
    streamWordByWord(loopback.server, { content: 'The answer is 395 exactly.' });
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const { chunks, message } = await chat(serve, [question]);
    const types = chunks.map((chunk) => chunk.type);
    expect(types.filter((type) => type === 'text-delta').length).toBeGreaterThanOrEqual(5);
    expect(types.indexOf('tool-input-start')).toBeLessThan(types.indexOf('tool-input-delta'));
    expect(types.indexOf('tool-input-delta')).toBeLessThan(types.indexOf('tool-input-available'));
    expect(textOf(message).join('')).toBe('The answer is 395 exactly.');
    const metadata = chunks.filter((chunk) => chunk.type === 'message-metadata') as Array<{
      messageMetadata: { usage: { totalTokens: number } };
    }>;
    expect(metadata.map((chunk) => chunk.messageMetadata.usage.totalTokens)).toEqual([15, 30]);
  });

  it('keeps a preamble as text before the tool part, as the AI SDK 6 streamText does (no reset-step for it)', async () => {
    queuePreambleThenAnswer();
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const { chunks, message } = await chat(serve, [question]);
    expect(chunks.some((chunk) => (chunk.type as string) === 'reset-step')).toBe(false);
    expect(textOf(message)).toEqual(['Let me calculate that first. ', 'The answer is 395.']);
    const kinds = message.parts.map((part) => part.type).filter((type) => type !== 'reasoning');
    expect(kinds.indexOf('tool-calculator')).toBeGreaterThan(kinds.indexOf('text'));
  });

  it("a person's refusal is tool-output-denied on the tool part; a cancelled run ends with abort and its reason", async () => {
    const tools = testTools();
    const refused = refusedRun(tools);
    const chunks = await chunksOfRun(refused, 6);
    expect(chunks.map((chunk) => chunk.type)).not.toContain('tool-approval-response');
    const tool = (await messageOf(chunks)).parts.find((part) => part.type === 'tool-calculator');
    expect(tool).toMatchObject({ state: 'output-denied', toolCallId: 'call_a' });

    loopback.server.hang();
    const cancelled = streamRun(
      reactPipeline(),
      { task: 'What is 2 + 2?' },
      { deps: { model: loopback.model(), tools } },
    );
    void loopback.server.received(3).then(() => cancelled.cancel('the person pressed stop'));
    const ended = await chunksOfRun(cancelled, 6);
    const abort = ended.find((chunk) => chunk.type === 'abort');
    expect(abort?.reason).toContain('the person pressed stop');
    expect((await messageOf(ended)).metadata).toMatchObject({ status: 'cancelled' });
  });

  it("carries the model's reasoning as a reasoning part", async () => {
    streamWordByWord(loopback.server, { content: 'It is 395.' });
    const model = loopback.model();
    const reasoning = {
      ...model,
      chat: model.chat.bind(model),
      chatStream: (
        request: Parameters<NonNullable<typeof model.chatStream>>[0],
        onPiece: Parameters<NonNullable<typeof model.chatStream>>[1],
        signal?: AbortSignal,
      ) => {
        onPiece({ type: 'reasoning', delta: 'Multiply, then add four.' });
        return model.chatStream(request, onPiece, signal);
      },
    };
    const chunks = await chunksOfRun(
      streamRun(reactPipeline(), { task: 'What is 17 * 23 + 4?' }, { deps: { model: reasoning, tools: testTools() } }),
      6,
    );
    const message = await messageOf(chunks);
    expect(message.parts.some((part) => part.type === 'reasoning' && part.text === 'Multiply, then add four.')).toBe(
      true,
    );
    expect(textOf(message).join('')).toBe('It is 395.');
  });
});

describe('the UI message stream for an AI SDK 7 client (aiSdk: 7)', () => {
  it('takes a preamble back with reset-step and sends again what the step still holds', async () => {
    queuePreambleThenAnswer();
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const chunks = await rawChunks(serve, { aiSdk: 7 });
    const types = chunks.map((chunk) => chunk.type);
    const reset = types.indexOf('reset-step');
    expect(reset).toBeGreaterThan(types.indexOf('text-delta'));
    expect(reset).toBeLessThan(types.indexOf('tool-input-start'));
    const preambleId = chunks.find((chunk) => chunk.type === 'text-start')!.id;
    const afterReset = chunks.slice(reset + 1);
    expect(afterReset.some((chunk) => chunk.id === preambleId)).toBe(false);
    const answer = afterReset.filter((chunk) => chunk.type === 'text-delta').map((chunk) => chunk.delta);
    expect(answer.join('')).toBe('The answer is 395.');
    // The AI SDK 6 client refuses a chunk type it does not know: reset-step is for clients that say they read it.
    queuePreambleThenAnswer();
    await expect(chat(serve, [question], { aiSdk: 7 })).rejects.toThrow(/Type validation failed/);
  });

  it("a person's decision is tool-approval-response (with the message as its reason), then tool-output-denied", async () => {
    const tools = testTools();
    const refused = refusedRun(tools);
    const chunks = await chunksOfRun(refused, 7);
    const types = chunks.map((chunk) => chunk.type);
    expect(chunks.find((chunk) => chunk.type === 'tool-approval-response')).toEqual({
      type: 'tool-approval-response',
      approvalId: 'call_a',
      approved: false,
      reason: 'not today',
    });
    expect(types.indexOf('tool-approval-request')).toBeLessThan(types.indexOf('tool-approval-response'));
    expect(types.indexOf('tool-approval-response')).toBeLessThan(types.indexOf('tool-output-denied'));
  });
});
