// fallbackModel over two real loopback Chat Completions servers: the primary failing, the secondary answering.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/engine/runner.js';
import { fallbackModel, type FallbackEvent, type FallbackModelOptions } from '../../src/model/fallback-model.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { ModelError, type ChatRequest } from '../../src/model/types.js';
import { traceModel } from '../../src/tracing/traced-model.js';
import { startChatServer, type ChatServer } from '../support/chat-server.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';
import { makeTracing } from '../tracing/span-tree.js';

const primaryServer = useLoopbackServer();
let secondaryServer: ChatServer;
beforeEach(async () => {
  secondaryServer = await startChatServer();
});
afterEach(() => secondaryServer.close());

const request: ChatRequest = { messages: [{ role: 'user', content: 'hi' }], purpose: 'test' };

function models(options: Omit<FallbackModelOptions, 'onEvent'> = {}) {
  const events: FallbackEvent[] = [];
  const primary = primaryServer.model({ model: 'primary-model' });
  const secondary = new OpenAIChatModel({
    baseUrl: secondaryServer.url,
    model: 'secondary-model',
    maxRetries: 0,
    timeoutMs: 2_000,
  });
  return { model: fallbackModel([primary, secondary], { ...options, onEvent: (event) => events.push(event) }), events };
}

describe('fallbackModel', () => {
  it('the primary answering 429 forever: a ReAct run completes on the secondary, and says so', async () => {
    primaryServer.server.fail(429, { times: 50 });
    secondaryServer
      .replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"17 * 23 + 4"}' }], {
        model: 'secondary-model',
      })
      .replyWith({ content: '395', model: 'secondary-model' });
    const { model, events } = models();
    const result = await runPipeline(
      reactPipeline(),
      { task: 'What is 17 * 23 + 4?' },
      { deps: { model, tools: testTools() } },
    );
    expect(result).toMatchObject({ status: 'completed', answer: '395' });
    secondaryServer.assertConsumed();
    // The second turn skips the primary: it is cooling down.
    expect(primaryServer.server.requests).toHaveLength(1);
    expect(events).toEqual([
      {
        type: 'model_failed',
        index: 0,
        model: 'primary-model',
        kind: 'rate_limited',
        message: expect.stringContaining('429'),
        coolDownUntil: expect.any(Number),
      },
      { type: 'model_answered', index: 1, model: 'secondary-model', fellBack: true },
      { type: 'model_answered', index: 1, model: 'secondary-model', fellBack: false },
    ]);
  });

  it('the primary answering 500: the response names the model that answered, and so does the chat span', async () => {
    primaryServer.server.fail(500, { times: 5 });
    secondaryServer.replyWith({ content: 'hello', model: 'secondary-model' });
    const tracing = makeTracing();
    const { model } = models();
    const traced = traceModel(model, { tracer: tracing.tracer });
    const response = await model.chat(request);
    expect(response).toMatchObject({
      content: 'hello',
      model: 'secondary-model',
      answeredBy: { index: 1, model: 'secondary-model', provider: 'openai_compatible' },
    });
    secondaryServer.replyWith({ content: 'again', model: 'secondary-model' });
    await traced.chat(request);
    expect(tracing.spans()[0]!.attributes).toMatchObject({
      'gen_ai.request.model': 'primary-model',
      'gen_ai.response.model': 'secondary-model',
    });
    await tracing.shutdown();
  });

  it('never falls back on auth or bad_request unless told to', async () => {
    primaryServer.server.fail(401).fail(400).fail(401);
    secondaryServer.replyWith({ content: 'from the secondary' });
    const plain = models().model;
    await expect(plain.chat(request)).rejects.toMatchObject({ kind: 'auth', status: 401 });
    await expect(plain.chat(request)).rejects.toMatchObject({ kind: 'bad_request' });
    expect(secondaryServer.requests).toHaveLength(0);
    const told = models({ fallbackOn: ['auth'] }).model;
    expect(await told.chat(request)).toMatchObject({ content: 'from the secondary', answeredBy: { index: 1 } });
  });

  it('after its cool-down the primary is tried again; a model that answers is trusted again', async () => {
    let now = 1_000;
    const { model } = models({ coolDownMs: 10_000, clock: { now: () => now } });
    primaryServer.server.fail(503);
    secondaryServer.replyWith({ content: 'one' }).replyWith({ content: 'two' });
    expect((await model.chat(request)).content).toBe('one');
    now += 5_000;
    expect((await model.chat(request)).content).toBe('two');
    now += 5_001;
    primaryServer.server.replyWith({ content: 'primary is back' });
    expect(await model.chat(request)).toMatchObject({ content: 'primary is back', answeredBy: { index: 0 } });
    expect(primaryServer.server.requests).toHaveLength(2);
  });

  it('every model failing is one ModelError listing each failure; an abort is never a reason to move on', async () => {
    primaryServer.server.fail(429);
    secondaryServer.fail(502);
    const error = await models()
      .model.chat(request)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({
      kind: 'server',
      retryable: true,
      message: expect.stringMatching(/^All 2 models failed: primary-model: .*429.*; secondary-model: .*502/),
    });

    primaryServer.server.hang();
    const secondaryCalls = secondaryServer.requests.length;
    const controller = new AbortController();
    const pending = models().model.chat(request, controller.signal);
    // Aborted while the primary holds the call: once its request has arrived, not after a pause.
    await primaryServer.server.received(primaryServer.server.requests.length + 1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
    expect(secondaryServer.requests).toHaveLength(secondaryCalls);
  });

  it('streaming: falls back before any text arrived', async () => {
    primaryServer.server.fail(429);
    secondaryServer.streamReply({ content: 'streamed answer' });
    const pieces: string[] = [];
    const response = await models().model.chatStream(
      request,
      (event) => event.type === 'text' && pieces.push(event.delta),
    );
    expect(response).toMatchObject({ content: 'streamed answer', answeredBy: { index: 1 } });
    expect(pieces.join('')).toBe('streamed answer');
  });

  it('needs at least one model', () => {
    expect(() => fallbackModel([])).toThrow('fallbackModel needs at least one model');
  });
});
