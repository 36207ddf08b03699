import { describe, expect, it } from 'vitest';
import { observe } from '../../../stages/loop/observe.js';
import type { ToolCall } from '../../../src/model/types.js';
import type { ToolResult } from '../../../src/engine/tool-port.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { planSlotFor } from '../../support/plan-slot.js';

const call = (id: string, name = 'calculator'): ToolCall => ({ id, name, arguments: `{"n":"${id}"}` });
const ok = (content: string): ToolResult => ({ ok: true, content, durationMs: 1 });
const failed = (message: string): ToolResult => ({
  ok: false,
  error: { kind: 'invalid_arguments', message, retryable: false },
  durationMs: 1,
});

describe('observe stage', () => {
  it('feeds every result back as one tool message, in call order, errors with their kind', async () => {
    const state = makeState({ messages: [{ role: 'system', content: 's' }] });
    const calls = [call('a'), call('b', 'lookup'), call('c')];
    state.turn = {
      toolCalls: calls,
      results: [
        { call: calls[1]!, result: failed('key is required') },
        { call: calls[0]!, result: ok('42') },
        { call: calls[2]!, result: ok('7') },
      ],
    };
    await observe().execute(state, makeCtx());
    expect(state.messages.slice(1)).toEqual([
      { role: 'tool', toolCallId: 'a', name: 'calculator', content: '42' },
      { role: 'tool', toolCallId: 'b', name: 'lookup', content: 'Error (invalid_arguments): key is required' },
      { role: 'tool', toolCallId: 'c', name: 'calculator', content: '7' },
    ]);
    expect(state.observe).toEqual({
      step: null,
      results: [
        { tool: 'calculator', arguments: '{"n":"a"}', ok: true, content: '42' },
        { tool: 'lookup', arguments: '{"n":"b"}', ok: false, content: 'Error (invalid_arguments): key is required' },
        { tool: 'calculator', arguments: '{"n":"c"}', ok: true, content: '7' },
      ],
    });
  });

  it('answers a call that has no result, so the conversation stays valid', async () => {
    const state = makeState();
    state.turn = { toolCalls: [call('a')], results: [] };
    await observe().execute(state, makeCtx());
    expect(state.messages).toEqual([
      { role: 'tool', toolCallId: 'a', name: 'calculator', content: 'Error (failed): This call was not run.' },
    ]);
  });

  it('keeps the latest results of the current plan step only', async () => {
    const state = makeState();
    state.plan = planSlotFor({
      steps: [
        { description: 'one', status: 'completed' },
        { description: 'two', status: 'in_progress' },
      ],
      current: 1,
      results: [],
      source: 'planner',
    });
    state.observe = { step: 0, results: [{ tool: 'calculator', arguments: '{}', ok: true, content: 'old' }] };
    state.turn = { toolCalls: [call('x')], results: [{ call: call('x'), result: ok('new') }] };
    await observe({ keepResults: 2 }).execute(state, makeCtx());
    expect(state.observe).toEqual({
      step: 1,
      results: [{ tool: 'calculator', arguments: '{"n":"x"}', ok: true, content: 'new' }],
    });
    for (const id of ['y', 'z']) {
      state.turn = { toolCalls: [call(id)], results: [{ call: call(id), result: ok(id) }] };
      await observe({ keepResults: 2 }).execute(state, makeCtx());
    }
    expect(state.observe.results.map((result) => result.content)).toEqual(['y', 'z']);
  });

  it('does nothing on a turn without tool calls', async () => {
    const state = makeState({ messages: [{ role: 'user', content: 'u' }] });
    await observe().execute(state, makeCtx());
    expect(state.messages).toHaveLength(1);
    expect(state.observe).toBeUndefined();
  });
});
