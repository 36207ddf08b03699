import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { act } from '../../../stages/loop/act.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import type { ToolCall } from '../../../src/model/types.js';
import type { ToolBox } from '../../../src/engine/tool-port.js';
import { makeCtx, makeState, unobservedCtx } from '../../support/helpers.js';
import { testTools } from '../../support/stage-tools.js';

const call = (id: string, expression: string): ToolCall => ({
  id,
  name: 'calculator',
  arguments: JSON.stringify({ expression }),
});

describe('act stage', () => {
  it('runs every call through the tool box and records the results in call order', async () => {
    const state = makeState();
    state.turn = {
      toolCalls: [call('a', '6 * 7'), call('b', '1 +'), { id: 'c', name: 'missing', arguments: '{}' }],
      results: [],
    };
    const ctx = makeCtx({ deps: { tools: testTools() } });
    expect(await act().execute(state, ctx)).toBeUndefined();

    expect(state.turn.results.map((outcome) => outcome.call.id)).toEqual(['a', 'b', 'c']);
    expect(state.turn.results[0]!.result).toMatchObject({ ok: true, content: '42' });
    expect(state.turn.results[1]!.result).toMatchObject({ ok: false, error: { kind: 'failed' } });
    expect(state.turn.results[2]!.result).toMatchObject({ ok: false, error: { kind: 'unknown_tool' } });
    expect(state.act).toEqual({ executed: 3, failed: 2 });
    expect(
      ctx.events.map(
        (event) => `${event.type}:${event.type === 'tool_call' || event.type === 'tool_result' ? event.data.id : '-'}`,
      ),
    ).toEqual(['tool_call:a', 'tool_call:b', 'tool_call:c', 'tool_result:a', 'tool_result:b', 'tool_result:c']);
    expect(ctx.events[0]!.data).toEqual({ id: 'a', name: 'calculator', arguments: '{"expression":"6 * 7"}' });
    expect(ctx.events[3]!.data).toMatchObject({ id: 'a', ok: true, result: '42' });
  });

  it('builds no event data when nobody listens (it gives ctx.emit functions), with the same results', async () => {
    const state = makeState();
    state.turn = { toolCalls: [call('a', '6 * 7')], results: [] };
    const ctx = unobservedCtx({ deps: { tools: testTools() } });
    await act().execute(state, ctx);
    expect(state.turn.results[0]!.result).toMatchObject({ ok: true, content: '42' });
    expect(ctx.built).toEqual([]);
  });

  it('returns at once when the turn has no tool calls, and awaits a tool box that answers with another thenable', async () => {
    const idle = makeState();
    expect(act().execute(idle, makeCtx({ deps: { tools: testTools() } }))).toBeUndefined();

    const state = makeState();
    state.turn = { toolCalls: [call('a', '1 + 1')], results: [] };
    const lateBox = {
      definitions: () => [],
      executeAll: () => ({
        then: (resolve: (results: unknown[]) => void) =>
          setTimeout(() => resolve([{ ok: true, content: 'late', durationMs: 1 }]), 5),
      }),
    } as unknown as ToolBox;
    await act().execute(state, makeCtx({ deps: { tools: lateBox } }));
    expect(state.turn.results[0]!.result).toMatchObject({ ok: true, content: 'late' });
  });

  it('runs only the calls without a pre-filled result, keeps the refusal, and keeps call order', async () => {
    const state = makeState();
    const refused = {
      call: call('b', '2 + 2'),
      result: {
        ok: false as const,
        error: { kind: 'failed' as const, message: 'refused by a guard', retryable: false },
        durationMs: 0,
      },
    };
    state.turn = { toolCalls: [call('a', '1 + 1'), call('b', '2 + 2'), call('c', '3 + 3')], results: [refused] };
    const ctx = makeCtx({ deps: { tools: testTools() } });
    await act().execute(state, ctx);
    expect(
      state.turn.results.map((outcome) => [
        outcome.call.id,
        outcome.result.ok ? outcome.result.content : outcome.result.error.message,
      ]),
    ).toEqual([
      ['a', '2'],
      ['b', 'refused by a guard'],
      ['c', '6'],
    ]);
    expect(state.act).toEqual({ executed: 2, failed: 0 });
    expect(ctx.events.filter((event) => event.type === 'tool_call').map((event) => event.data.id)).toEqual(['a', 'c']);
  });

  it('runs the calls of one turn in parallel', async () => {
    let running = 0;
    let most = 0;
    let bothRunning: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (bothRunning = resolve));
    const slow = defineTool({
      name: 'slow',
      description: 'waits a little',
      parameters: z.object({}),
      execute: async () => {
        most = Math.max(most, ++running);
        if (running === 2) bothRunning();
        // Each call waits until both run: calls made one after another would wait here until the test times out.
        await together;
        running--;
        return 'done';
      },
    });
    const state = makeState();
    state.turn = {
      toolCalls: [
        { id: '1', name: 'slow', arguments: '{}' },
        { id: '2', name: 'slow', arguments: '{}' },
      ],
      results: [],
    };
    await act().execute(state, makeCtx({ deps: { tools: testTools(slow) } }));
    expect(most).toBe(2);
    expect(state.turn.results.map((outcome) => outcome.result.ok)).toEqual([true, true]);
  });

  it('passes ctx.signal to the tools: cancelling the run stops a call in flight', async () => {
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const waiting = defineTool({
      name: 'waiting',
      description: 'waits until stopped',
      parameters: z.object({}),
      execute: (_args, { signal }) =>
        new Promise<string>((resolve) => {
          signal.addEventListener('abort', () => resolve('stopped'));
          started();
        }),
    });
    const state = makeState();
    state.turn = { toolCalls: [{ id: '1', name: 'waiting', arguments: '{}' }], results: [] };
    const controller = new AbortController();
    const acting = act().execute(state, makeCtx({ deps: { tools: testTools(waiting) }, signal: controller.signal }));
    // Cancelled while the call is in flight.
    await running;
    controller.abort();
    await acting;
    expect(state.turn.results[0]!.result).toMatchObject({ ok: false, error: { kind: 'aborted' } });
  });

  it('does nothing on a turn without tool calls, and reports every call as failed when there is no tool box', async () => {
    const quiet = makeState();
    await act().execute(quiet, makeCtx());
    expect(quiet.act).toBeUndefined();

    const state = makeState();
    state.turn = { toolCalls: [call('a', '1')], results: [] };
    await act().execute(state, makeCtx());
    expect(state.turn.results[0]!.result).toMatchObject({
      ok: false,
      error: { kind: 'unknown_tool', message: expect.stringMatching(/No tools are available/) },
    });
  });
});
