// textStream and fullStream against a loopback server streaming word by word: the answer in pieces as it arrives (ReAct
// and Plan-Execute-Replan), a preamble before a tool call taken back by reset-step, tool input pieces, reasoning parts.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline, reactPipeline } from '../../pipelines/index.js';
import type { ChatModel } from '../../src/model/types.js';
import { streamRun } from '../../src/stream/stream-run.js';
import type { StreamPart } from '../../src/stream/stream-parts.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';
import { streamWordByWord } from './word-stream.js';

const loopback = useLoopbackServer({ timeoutMs: 10_000 });
const task = { task: 'What is 17 * 23 + 4?' };
const calculatorCall = { name: 'calculator', arguments: JSON.stringify({ expression: '17 * 23 + 4' }), id: 'call_a' };

async function partsOf(stream: { fullStream: AsyncIterable<StreamPart> }): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream.fullStream) parts.push(part);
  return parts;
}

const textOf = (parts: StreamPart[]) => parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : []));

describe('textStream streams the answer as it arrives', () => {
  it('ReAct: a 5-word answer streamed word by word is 5 pieces, each given before the reply ended', async () => {
    streamWordByWord(loopback.server, { content: 'The answer is 395 exactly.' }, 20);
    const stream = streamRun(reactPipeline(), task, { deps: { model: loopback.model(), tools: testTools() } });
    const pieces: string[] = [];
    const repliedWhenGiven: boolean[] = [];
    for await (const text of stream.textStream) {
      pieces.push(text);
      repliedWhenGiven.push(stream.events.some((event) => event.type === 'model_reply'));
    }
    const result = await stream.result;
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 395 exactly.' });
    expect(pieces.length).toBeGreaterThanOrEqual(5);
    expect(pieces.join('')).toBe(result.answer);
    // The first pieces were given while the model was still writing.
    expect(repliedWhenGiven.slice(0, 4)).toEqual([false, false, false, false]);
  });

  it("Plan-Execute-Replan: a plan step's reply and the final answer stream in pieces; textStream gives the answer's", async () => {
    loopback.server.replyWith({
      content: JSON.stringify({ steps: [{ description: 'Compute 12*12', status: 'pending' }] }),
    });
    streamWordByWord(loopback.server, { content: 'Twelve twelves make 144 together.' });
    loopback.server.replyWith({ content: JSON.stringify({ need_replan: false, reason: 'done', new_steps: [] }) });
    streamWordByWord(loopback.server, { content: 'The answer is 144 exactly.' });
    const stream = streamRun(
      planExecuteReplanPipeline(),
      { task: 'Compute 12*12' },
      {
        deps: { model: loopback.model(), tools: testTools() },
      },
    );
    const pieces: string[] = [];
    for await (const text of stream.textStream) pieces.push(text);
    const result = await stream.result;
    loopback.server.assertConsumed();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 144 exactly.' });
    expect(pieces).toEqual(['The ', 'answer ', 'is ', '144 ', 'exactly.']);
    const stepDeltas = stream.events.filter((event) => event.type === 'text_delta' && event.step !== undefined);
    expect(stepDeltas.length).toBeGreaterThanOrEqual(5);
  });
});

describe('fullStream', () => {
  it('a preamble streams, then reset-step takes it back at the first tool-call piece; tool input, call, result, steps, finish', async () => {
    loopback.server.streamReply(
      { content: 'Let me calculate that first. ', toolCalls: [calculatorCall] },
      { delayMs: 1 },
    );
    streamWordByWord(loopback.server, { content: 'The answer is 395 exactly.' });
    const stream = streamRun(reactPipeline(), task, { deps: { model: loopback.model(), tools: testTools() } });
    const parts = await partsOf(stream);
    const result = await stream.result;
    const types = parts.map((part) => part.type);
    expect(types[0]).toBe('start');
    expect(types.at(-1)).toBe('finish');
    const reset = parts.find((part) => part.type === 'reset-step');
    expect(reset).toMatchObject({ type: 'reset-step', text: 'Let me calculate that first. ', reason: 'tool-calls' });
    // Taken back before the tool input starts: a UI never shows the preamble beside the call.
    expect(types.indexOf('reset-step')).toBeLessThan(types.indexOf('tool-input-start'));
    expect(parts.find((part) => part.type === 'tool-input-start')).toEqual({
      type: 'tool-input-start',
      toolCallId: 'call_a',
      toolName: 'calculator',
    });
    const input = parts.flatMap((part) => (part.type === 'tool-input-delta' ? [part.delta] : [])).join('');
    expect(JSON.parse(input)).toEqual({ expression: '17 * 23 + 4' });
    expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({
      toolCallId: 'call_a',
      input: { expression: '17 * 23 + 4' },
    });
    expect(parts.find((part) => part.type === 'tool-result')).toMatchObject({ toolCallId: 'call_a', output: '395' });
    // The text parts minus the one taken back are the answer.
    const kept = parts.filter(
      (part) =>
        part.type === 'text-delta' && parts.every((other) => other.type !== 'reset-step' || other.id !== part.id),
    );
    expect(textOf(kept).join('')).toBe(result.answer);
    const steps = parts.filter((part) => part.type === 'finish-step');
    expect(steps.map((part) => part.finishReason)).toEqual(['tool-calls', 'stop']);
    expect(steps[0]).toMatchObject({ iteration: 1, usage: { inputTokens: 10, outputTokens: 5 } });
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      status: 'completed',
      finishReason: 'stop',
      stopReason: { kind: 'completed' },
      answer: 'The answer is 395 exactly.',
      usage: { inputTokens: 20, outputTokens: 10 },
    });
    // textStream is strings: it cannot take text back, so it gives the preamble too (fullStream is the one that can).
    const texts: string[] = [];
    for await (const text of stream.textStream) texts.push(text);
    expect(texts.join('')).toBe('Let me calculate that first. The answer is 395 exactly.');
  });

  it("carries the model's reasoning as reasoning parts, apart from the text", async () => {
    streamWordByWord(loopback.server, { content: 'It is 395.' });
    const model = withReasoning(loopback.model(), ['First multiply, ', 'then add four.']);
    const stream = streamRun(reactPipeline(), task, { deps: { model, tools: testTools() } });
    const parts = await partsOf(stream);
    const start = parts.find((part) => part.type === 'reasoning-start');
    expect(start).toMatchObject({ purpose: 'think' });
    const reasoning = parts.filter((part) => part.type === 'reasoning-delta' && part.id === start!.id);
    expect(reasoning.map((part) => (part as { text: string }).text).join('')).toBe('First multiply, then add four.');
    const types = parts.map((part) => part.type);
    expect(types.indexOf('reasoning-end')).toBeLessThan(types.indexOf('text-start'));
    expect(textOf(parts).join('')).toBe('It is 395.');
  });

  it('a cancelled run ends with abort and its reason, then finish', async () => {
    loopback.server.hang();
    const stream = streamRun(reactPipeline(), task, { deps: { model: loopback.model(), tools: testTools() } });
    const parts: StreamPart[] = [];
    for await (const part of stream.fullStream) {
      parts.push(part);
      if (part.type === 'start-step') stream.cancel('the person closed the page');
    }
    expect(parts.at(-2)).toEqual({ type: 'abort', reason: expect.stringContaining('the person closed the page') });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', status: 'cancelled', finishReason: 'other' });
  });
});

/** A provider that streams reasoning before its reply (as reasoning models do): the pieces, then the loopback reply. */
function withReasoning(model: ChatModel, pieces: string[]): ChatModel {
  return {
    ...model,
    chat: (request, signal) => model.chat(request, signal),
    chatStream: (request, onPiece, signal) => {
      for (const delta of pieces) onPiece({ type: 'reasoning', delta });
      return model.chatStream!(request, onPiece, signal);
    },
  };
}
