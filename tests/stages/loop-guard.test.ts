import { describe, expect, it } from 'vitest';
import { callFingerprint, canonicalJson, loopGuard } from '../../stages/loop-guard.js';
import { GuardConfigError } from '../../stages/guard-config-error.js';
import type { RunState } from '../../src/engine/state.js';
import type { ToolCall } from '../../src/model/types.js';
import type { ToolResult } from '../../src/tools/types.js';
import { makeCtx, makeState } from '../support/helpers.js';

let counter = 0;
const call = (name: string, args: string): ToolCall => ({ id: `call_${++counter}`, name, arguments: args });

/** What think does at the start of a turn: new calls, no results. */
function newTurn(state: RunState, ...calls: ToolCall[]): void {
  state.iteration += 1;
  state.turn = { toolCalls: calls, results: [] };
}

/** What act does: a result for every call without one. */
function act(state: RunState, result: (call: ToolCall) => ToolResult = () => ({ ok: true, content: '42', durationMs: 1 })): void {
  const decided = new Set(state.turn.results.map((outcome) => outcome.call.id));
  for (const pending of state.turn.toolCalls) if (!decided.has(pending.id)) state.turn.results.push({ call: pending, result: result(pending) });
}

describe('canonical call fingerprints', () => {
  it('ignores key order and whitespace in JSON arguments, keeps raw text for unparsable ones', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
    expect(callFingerprint({ name: 'search', arguments: '{"q":"x","n":2}' })).toBe(callFingerprint({ name: 'search', arguments: '{ "n": 2, "q": "x" }' }));
    expect(callFingerprint({ name: 'search', arguments: '{"q":"x"}' })).not.toBe(callFingerprint({ name: 'fetch', arguments: '{"q":"x"}' }));
    expect(callFingerprint({ name: 'search', arguments: '{"q": broken' })).toBe(callFingerprint({ name: 'search', arguments: ' {"q": broken ' }));
    expect(callFingerprint({ name: 'search', arguments: '{"q": broken' })).not.toBe(callFingerprint({ name: 'search', arguments: '{"q": other' }));
  });
});

describe('loopGuard', () => {
  it('lets a call run limit - 1 times, refuses the next with a tool error, aborts when asked again', async () => {
    const { history, ...stage } = loopGuard({ limit: 3 });
    const state = makeState();
    const ctx = makeCtx();
    for (const args of ['{"q":"weather"}', '{ "q": "weather" }']) {
      newTurn(state, call('search', args));
      expect(await stage.execute(state, ctx)).toBeUndefined();
      expect(state.turn.results).toEqual([]);
      act(state);
      await history.execute(state, ctx);
    }
    newTurn(state, call('search', '{"q":"weather"}'), call('search', '{"q":"news"}'));
    expect(await stage.execute(state, ctx)).toBeUndefined();
    expect(state.turn.results).toHaveLength(1);
    const refused = state.turn.results[0]!;
    expect(refused.call.arguments).toBe('{"q":"weather"}');
    expect(refused.result).toMatchObject({ ok: false, error: { kind: 'refused', retryable: false } });
    expect(refused.result.ok ? '' : refused.result.error.message).toMatch(/already called search with these same arguments 2 times.*Change your approach/);
    expect(ctx.events.map((event) => event.type)).toEqual(['loop_refused']);
    act(state);
    expect(state.turn.results).toHaveLength(2);
    newTurn(state, call('search', '{"q":"weather"}'));
    expect(await stage.execute(state, ctx)).toMatchObject({ type: 'abort_run', kind: 'loop_detected' });
  });

  it('refuses a repeat of a call that failed for good, but not of a transient failure', async () => {
    const { history, ...stage } = loopGuard({ limit: 5 });
    const state = makeState();
    const ctx = makeCtx();
    newTurn(state, call('divide', '{"a":1,"b":0}'), call('fetch', '{"url":"x"}'));
    await stage.execute(state, ctx);
    act(state, (pending) => ({
      ok: false,
      error: pending.name === 'divide'
        ? { kind: 'failed', message: 'division by zero', retryable: false }
        : { kind: 'timeout', message: 'timed out', retryable: true },
      durationMs: 1,
    }));
    await history.execute(state, ctx);
    newTurn(state, call('divide', '{"b":0,"a":1}'), call('fetch', '{"url":"x"}'));
    expect(await stage.execute(state, ctx)).toBeUndefined();
    expect(state.turn.results).toHaveLength(1);
    const refused = state.turn.results[0]!.result;
    expect(refused.ok ? '' : refused.error.message).toContain('already failed (division by zero)');
    expect(state.loopGuard?.pending.map((pending) => pending.id)).toEqual([state.turn.toolCalls[1]!.id]);
  });

  it('a later success clears an earlier failure', async () => {
    const { history, ...stage } = loopGuard({ limit: 5 });
    const state = makeState();
    newTurn(state, call('read', '{"path":"a"}'));
    await stage.execute(state, makeCtx());
    state.loopGuard!.calls[callFingerprint({ name: 'read', arguments: '{"path":"a"}' })]!.failure = 'gone';
    act(state);
    await history.execute(state, makeCtx());
    expect(Object.values(state.loopGuard!.calls)[0]!.failure).toBeNull();
  });

  it('skips calls a guard already decided and aborts after limit refusals of different calls', async () => {
    const stage = loopGuard({ limit: 2 });
    const state = makeState();
    const ctx = makeCtx();
    newTurn(state, call('a', '{}'), call('b', '{}'));
    await stage.execute(state, ctx);
    newTurn(state, call('a', '{}'));
    expect(await stage.execute(state, ctx)).toBeUndefined();
    newTurn(state, call('b', '{}'));
    expect(await stage.execute(state, ctx)).toMatchObject({ kind: 'loop_detected', reason: expect.stringContaining('2 refused') });
    const prefilled = makeState();
    const decided = call('a', '{}');
    newTurn(prefilled, decided);
    prefilled.turn.results.push({ call: decided, result: { ok: false, error: { kind: 'failed', message: 'no', retryable: false }, durationMs: 0 } });
    await stage.execute(prefilled, ctx);
    expect(prefilled.loopGuard?.calls).toEqual({});
  });

  it('rejects a limit below 2', () => {
    expect(() => loopGuard({ limit: 1 })).toThrow(GuardConfigError);
    expect(() => loopGuard({ limit: 2.5 })).toThrow('limit must be a whole number of at least 2');
  });
});
