// streamRun against the loopback server streaming with delays: deltas as they arrive, whole tool calls, seq, cancel.
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { streamRun } from '../../src/stream/stream-run.js';
import { textChunk } from '../support/chat-server.js';
import { slowReply as slowReplyOn } from './slow-reply.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';

const loopback = useLoopbackServer({ timeoutMs: 10_000 });
const task = { task: 'What is 17 * 23 + 4?' };
const slowReply = (content: string, delayMs: number) => slowReplyOn(loopback.server, content, delayMs);

describe('streamRun', () => {
  it('gives the first text_delta before the reply has ended; textStream gives the answer in the pieces it arrives in', async () => {
    const reply = slowReply('The answer is 395, as 17 * 23 = 391.', 25);
    let sentAtFirstDelta = -1;
    let firstDeltaAt = 0;
    const stream = streamRun(reactPipeline(), task, {
      deps: {
        model: loopback.model(),
        tools: testTools(),
        onEvent: (event) => {
          if (event.type === 'text_delta' && sentAtFirstDelta < 0)
            [sentAtFirstDelta, firstDeltaAt] = [reply.sent(), Date.now()];
        },
      },
    });
    const pieces: string[] = [];
    for await (const text of stream.textStream) pieces.push(text);
    const result = await stream.result;
    expect(result.status).toBe('completed');
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.join('')).toBe(result.answer);
    const deltas = stream.events.filter((event) => event.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.map((event) => event.data.text).join('')).toBe(result.answer);
    expect(sentAtFirstDelta).toBeGreaterThan(0);
    expect(sentAtFirstDelta).toBeLessThan(reply.total - 5);
    const replied = stream.events.find((event) => event.type === 'model_reply')!;
    expect(replied.at - firstDeltaAt).toBeGreaterThanOrEqual(100);
    expect(loopback.server.lastBody?.stream).toBe(true);
  });

  it('every event in order, seq 1, 2, 3... with no gap, ending after run_finished', async () => {
    loopback.server.streamReply({ content: '395' }, { delayMs: 2 });
    const stream = streamRun(reactPipeline(), task, { deps: { model: loopback.model(), tools: testTools() } });
    const seen: RunEvent[] = [];
    for await (const event of stream) seen.push(event);
    expect(seen.map((event) => event.seq)).toEqual(seen.map((_event, index) => index + 1));
    expect(seen[0]!.type).toBe('run_started');
    expect(seen.at(-1)!.type).toBe('run_finished');
    expect(seen).toEqual(stream.events);
    expect(new Set(seen.map((event) => event.runId))).toEqual(new Set([(await stream.result).runId]));
  });

  it('a tool call streamed in pieces arrives whole and validated; its pieces are tool_call_delta events', async () => {
    const call = { name: 'calculator', arguments: JSON.stringify({ expression: '17 * 23 + 4' }), id: 'call_a' };
    loopback.server
      .streamReply({ toolCalls: [call], splitEvery: 2 }, { delayMs: 2 })
      .streamReply({ content: '395' }, { delayMs: 2 });
    const stream = streamRun(reactPipeline(), task, { deps: { model: loopback.model(), tools: testTools() } });
    for await (const _event of stream) void _event;
    const events = stream.events;
    const pieces = events.filter((event) => event.type === 'tool_call_delta');
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces[0]!.data).toMatchObject({ purpose: 'think', index: 0, id: 'call_a', name: 'calculator' });
    expect(pieces.map((event) => event.data.argumentsDelta).join('')).toBe(call.arguments);
    expect(events.find((event) => event.type === 'tool_call')?.data).toEqual({
      id: 'call_a',
      name: 'calculator',
      arguments: call.arguments,
    });
    expect(events.find((event) => event.type === 'tool_result')?.data).toMatchObject({
      id: 'call_a',
      ok: true,
      result: '395',
    });
    expect((await stream.result).answer).toBe('395');
  });

  it('cancel(reason) mid-stream ends the run cancelled promptly; finalize still runs', async () => {
    const reply = slowReply('x'.repeat(120), 50);
    const stream = streamRun(reactPipeline(), task, { deps: { model: loopback.model(), tools: testTools() } });
    for await (const event of stream) {
      if (event.type === 'text_delta') stream.cancel('the user pressed stop');
    }
    const result = await stream.result;
    expect(result.status).toBe('cancelled');
    expect(result.stopReason.message).toMatch(/the user pressed stop/);
    expect(reply.sent()).toBeLessThan(reply.total / 2);
    expect(stream.events.some((event) => event.type === 'stage_started' && event.stage === 'summarize')).toBe(true);
  });

  it('breaking out of the loop cancels the run', async () => {
    slowReply('y'.repeat(120), 50);
    const stream = streamRun(reactPipeline(), task, { deps: { model: loopback.model(), tools: testTools() } });
    for await (const event of stream) if (event.type === 'text_delta') break;
    const result = await stream.result;
    expect(result.status).toBe('cancelled');
    expect(result.stopReason.message).toMatch(/stopped reading/);
  });

  it('a slow reader loses no event and does not change the outcome', async () => {
    loopback.server.streamReply({ content: 'three hundred and ninety-five' }, { delayMs: 1 });
    const direct: RunEvent[] = [];
    const stream = streamRun(reactPipeline(), task, {
      deps: { model: loopback.model(), tools: testTools(), onEvent: (event) => direct.push(event) },
    });
    const read: RunEvent[] = [];
    for await (const event of stream) {
      read.push(event);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(read).toEqual(direct);
    expect((await stream.result).answer).toBe('three hundred and ninety-five');
    // Read again from any seq: a reader that reconnects after seq 3 gets the rest.
    const again: number[] = [];
    for await (const event of stream.eventsAfter(3)) again.push(event.seq);
    expect(again).toEqual(direct.slice(3).map((event) => event.seq));
  });

  it('takes the plain call when nobody listens, and when the model cannot stream', async () => {
    loopback.server.replyWith({ content: '395' });
    const unobserved = await runPipeline(reactPipeline(), task, {
      deps: { model: loopback.model(), tools: testTools() },
    });
    expect(unobserved.answer).toBe('395');
    expect(loopback.server.lastBody?.stream).not.toBe(true);

    const stream = streamRun(reactPipeline(), task, {
      deps: { model: new ScriptedModel([{ content: '395' }]), tools: testTools() },
    });
    for await (const _event of stream) void _event;
    expect((await stream.result).answer).toBe('395');
    expect(stream.events.some((event) => event.type === 'text_delta')).toBe(false);
  });

  it('a recorded run streams too (the journaled model passes the deltas on)', async () => {
    loopback.server.streamReply({ content: 'recorded 395' }, { delayMs: 1 });
    const store = memoryStore();
    const stream = streamRun(reactPipeline(), task, { store, deps: { model: loopback.model(), tools: testTools() } });
    const pieces: string[] = [];
    for await (const text of stream.textStream) pieces.push(text);
    const result = await stream.result;
    expect(pieces.join('')).toBe('recorded 395');
    expect(result.status).toBe('completed');
    expect((await store.get(result.runId))?.status).toBe('completed');
  });

  it('a stream that breaks midway fails the run with the model error', async () => {
    loopback.server.stream([textChunk('half an '), { error: { message: 'model overloaded' } }]);
    const stream = streamRun(reactPipeline(), task, { deps: { model: loopback.model(), tools: testTools() } });
    for await (const _event of stream) void _event;
    const result = await stream.result;
    expect(result.status).toBe('failed');
    expect(result.error?.cause).toMatchObject({ name: 'ModelError', kind: 'server' });
    expect(stream.events.filter((event) => event.type === 'text_delta').map((event) => event.data.text)).toEqual([
      'half an ',
    ]);
  });
});

describe('textStream and preambles', () => {
  it('gives the text a reply wrote before its tool call as it came (fullStream takes it back); it is the tool_preamble event', async () => {
    const call = { name: 'calculator', arguments: JSON.stringify({ expression: '17 * 23 + 4' }), id: 'call_a' };
    loopback.server.streamReply({ content: 'Let me calculate that first. ', toolCalls: [call] }, { delayMs: 1 });
    loopback.server.streamReply({ content: 'The answer is 395.' }, { delayMs: 1 });
    const stream = streamRun(reactPipeline(), task, { deps: { model: loopback.model(), tools: testTools() } });
    const pieces: string[] = [];
    for await (const text of stream.textStream) pieces.push(text);
    const result = await stream.result;
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 395.' });
    // Strings cannot be taken back: the preamble was given before the tool call showed what it was.
    expect(pieces.join('')).toBe('Let me calculate that first. The answer is 395.');
    const preambles = stream.events.filter((event) => event.type === 'tool_preamble');
    expect(preambles.map((event) => event.data)).toEqual([
      { text: 'Let me calculate that first. ', toolCalls: ['calculator'] },
    ]);
    // The preamble still streamed as text_delta events, for a reader that wants every piece.
    expect(
      stream.events
        .filter((event) => event.type === 'text_delta')
        .map((event) => event.data.text)
        .join(''),
    ).toBe('Let me calculate that first. The answer is 395.');
  });
});

describe('a resumed recorded run', () => {
  it("gives a served reply's whole text as one text_delta, then streams the live calls", async () => {
    const { resumeRun } = await import('../../src/durable/durable-run.js');
    const call = { name: 'calculator', arguments: JSON.stringify({ expression: '17 * 23 + 4' }), id: 'call_a' };
    loopback.server.streamReply({ content: 'Let me compute.', toolCalls: [call] }, { delayMs: 1 });
    const store = memoryStore();
    // Cancelled inside iteration 1: the resume starts from the checkpoint before it and serves think's recorded reply.
    const stopInAct = (event: RunEvent) => {
      if (event.type === 'stage_started' && event.stage === 'act') first.cancel('stopped for now');
    };
    const first = streamRun(reactPipeline(), task, {
      store,
      deps: { model: loopback.model(), tools: testTools(), onEvent: stopInAct },
    });
    const stopped = await first.result;
    expect(stopped.status).toBe('cancelled');

    loopback.server.streamReply({ content: '395' }, { delayMs: 1 });
    const events: RunEvent[] = [];
    const resumed = await resumeRun(store, stopped.runId, {
      pipeline: reactPipeline(),
      deps: { model: loopback.model(), tools: testTools(), onEvent: (event) => events.push(event) },
    });
    expect(resumed).toMatchObject({ status: 'completed', answer: '395' });
    const texts = events.filter((event) => event.type === 'text_delta').map((event) => event.data.text);
    expect(texts[0]).toBe('Let me compute.');
    expect(texts.slice(1).join('')).toBe('395');
  });
});
