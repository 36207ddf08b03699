import { afterEach, describe, expect, it } from 'vitest';
import { callModel, requireModel, temperatureOf } from '../../../stages/shared/model-stream.js';
import type { ChatRequest } from '../../../src/model/types.js';
import { ScriptedModel } from '../../../src/testing/index.js';
import { useLoopbackServer } from '../../support/loopback-model.js';
import { makeCtx, type TestContext } from '../../support/helpers.js';

const loopback = useLoopbackServer();
const request: ChatRequest = { purpose: 'think', messages: [{ role: 'user', content: 'What is 6 * 7?' }] };
const contexts: TestContext[] = [];
afterEach(() => contexts.splice(0).forEach((ctx) => ctx.dispose()));
const context = (deps: Parameters<typeof makeCtx>[0] = {}) => {
  const ctx = makeCtx(deps);
  contexts.push(ctx);
  return ctx;
};

describe('callModel', () => {
  it('streams the reply as text_delta events when someone listens and the model can stream', async () => {
    loopback.server.streamReply({ content: 'The answer is 42.', splitEvery: 5 });
    const ctx = context();
    const response = await callModel(loopback.model(), request, ctx, undefined, true);
    expect(response.content).toBe('The answer is 42.');
    const deltas = ctx.events.flatMap((event) => (event.type === 'text_delta' ? [event.data] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((data) => data.text).join('')).toBe('The answer is 42.');
    expect(deltas.every((data) => data.purpose === 'think' && data.mayAnswer)).toBe(true);
    expect(loopback.server.lastBody?.stream).toBe(true);
  });

  it('streams tool calls as tool_call_delta events, the id and name with the first piece', async () => {
    loopback.server.streamReply({
      content: '',
      toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"6 * 7"}' }],
      splitEvery: 4,
    });
    const ctx = context();
    const response = await callModel(loopback.model(), request, ctx, undefined, false);
    expect(response.toolCalls).toEqual([{ id: 'c1', name: 'calculator', arguments: '{"expression":"6 * 7"}' }]);
    const pieces = ctx.events.flatMap((event) => (event.type === 'tool_call_delta' ? [event.data] : []));
    expect(pieces[0]).toMatchObject({ purpose: 'think', index: 0, id: 'c1', name: 'calculator' });
    expect(pieces.map((piece) => piece.argumentsDelta).join('')).toBe('{"expression":"6 * 7"}');
  });

  it('a model that cannot stream is called plainly', async () => {
    const ctx = context();
    const response = await callModel(new ScriptedModel([{ content: '42' }]), request, ctx, undefined, true);
    expect(response.content).toBe('42');
    expect(ctx.events).toEqual([]);
  });
});

describe('requireModel', () => {
  it("hands over the run's model, or names the stage that needs one and how to give it", () => {
    const model = new ScriptedModel([]);
    expect(requireModel(context({ deps: { model } }), 'think')).toBe(model);
    expect(() => requireModel(context(), 'plan')).toThrow('stage "plan" needs a model: pass deps.model to runPipeline');
  });
});

describe('temperatureOf', () => {
  it('sends a temperature only when the options set one (0 included)', () => {
    expect(temperatureOf({})).toEqual({});
    expect(temperatureOf({ temperature: 0 })).toEqual({ temperature: 0 });
    expect(temperatureOf({ temperature: 0.7 })).toEqual({ temperature: 0.7 });
  });
});
