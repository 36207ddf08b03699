import { describe, expect, it } from 'vitest';
import { callFingerprint, canonicalJson, loopGuard } from '../../../stages/guards/loop-guard.js';
import type { RunState } from '../../../src/engine/state.js';
import type { ToolCall } from '../../../src/model/types.js';
import type { ToolResult } from '../../../src/engine/tool-port.js';
import { makeCtx, makeState } from '../../support/helpers.js';

let counter = 0;
const call = (name: string, args: string): ToolCall => ({ id: `call_${++counter}`, name, arguments: args });

/** What think does at the start of a turn: new calls, no results. */
function newTurn(state: RunState, ...calls: ToolCall[]): void {
  state.iteration += 1;
  state.turn = { toolCalls: calls, results: [] };
}

/** What act does: a result for every call without one. */
function act(
  state: RunState,
  result: (call: ToolCall) => ToolResult = () => ({ ok: true, content: '42', durationMs: 1 }),
): void {
  const decided = new Set(state.turn.results.map((outcome) => outcome.call.id));
  for (const pending of state.turn.toolCalls)
    if (!decided.has(pending.id)) state.turn.results.push({ call: pending, result: result(pending) });
}

describe('canonical call fingerprints', () => {
  it('ignores key order and whitespace in JSON arguments, keeps raw text for unparsable ones', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
    expect(callFingerprint({ name: 'search', arguments: '{"q":"x","n":2}' })).toBe(
      callFingerprint({ name: 'search', arguments: '{ "n": 2, "q": "x" }' }),
    );
    expect(callFingerprint({ name: 'search', arguments: '{"q":"x"}' })).not.toBe(
      callFingerprint({ name: 'fetch', arguments: '{"q":"x"}' }),
    );
    expect(callFingerprint({ name: 'search', arguments: '{"q": broken' })).toBe(
      callFingerprint({ name: 'search', arguments: ' {"q": broken ' }),
    );
    expect(callFingerprint({ name: 'search', arguments: '{"q": broken' })).not.toBe(
      callFingerprint({ name: 'search', arguments: '{"q": other' }),
    );
  });
});

describe('loopGuard', () => {
  const fails =
    (message = 'service unavailable', retryable = false) =>
    (): ToolResult => ({ ok: false, error: { kind: 'failed', message, retryable }, durationMs: 1 });

  it('observe-plan-act "Repeated Tool Failure": the 3rd identical failing call is refused as a repeated, identical call; asking again stops with loop_detected', async () => {
    const { history, ...stage } = loopGuard();
    const state = makeState();
    const ctx = makeCtx();
    for (const args of ['{"q":"weather"}', '{ "q": "weather" }']) {
      newTurn(state, call('search', args));
      expect(await stage.execute(state, ctx)).toBeUndefined();
      expect(state.turn.results).toEqual([]);
      act(state, fails('HTTP 503 from the search service', true));
      await history.execute(state, ctx);
    }
    newTurn(state, call('search', '{"q":"weather"}'), call('search', '{"q":"news"}'));
    expect(await stage.execute(state, ctx)).toBeUndefined();
    expect(state.turn.results).toHaveLength(1);
    const refused = state.turn.results[0]!;
    expect(refused.call.arguments).toBe('{"q":"weather"}');
    expect(refused.result).toMatchObject({ ok: false, error: { kind: 'refused', retryable: false } });
    expect(refused.result.ok ? '' : refused.result.error.message).toMatch(
      /repeated, identical call to search .* already failed 2 times in a row \(last error: HTTP 503.*Take another path/,
    );
    expect(ctx.events.map((event) => event.type)).toEqual(['loop_refused']);
    act(state);
    await history.execute(state, ctx);
    expect(state.turn.results).toHaveLength(2);
    newTurn(state, call('search', '{"q":"weather"}'));
    expect(await stage.execute(state, ctx)).toMatchObject({ type: 'abort_run', kind: 'loop_detected' });
  });

  it('never refuses identical successful calls', async () => {
    const { history, ...stage } = loopGuard();
    const state = makeState();
    const ctx = makeCtx();
    for (let turn = 0; turn < 6; turn++) {
      newTurn(state, call('clock', '{}'));
      expect(await stage.execute(state, ctx)).toBeUndefined();
      expect(state.turn.results).toEqual([]);
      act(state);
      await history.execute(state, ctx);
    }
    expect(ctx.events).toEqual([]);
  });

  it('counts a streak: a success of the same call ends it, so fail, succeed, fail, fail all run and only the next is refused', async () => {
    const { history, ...stage } = loopGuard();
    const state = makeState();
    const ctx = makeCtx();
    for (const outcome of [fails(), undefined, fails(), fails()]) {
      newTurn(state, call('read', '{"path":"a"}'));
      expect(await stage.execute(state, ctx)).toBeUndefined();
      expect(state.turn.results).toEqual([]);
      act(state, outcome);
      await history.execute(state, ctx);
    }
    newTurn(state, call('read', '{"path":"a"}'));
    await stage.execute(state, ctx);
    expect(state.turn.results[0]?.result).toMatchObject({ ok: false, error: { kind: 'refused' } });
  });

  it('skips calls a guard already decided and aborts after limit refusals of different calls', async () => {
    const { history, ...stage } = loopGuard({ limit: 2 });
    const state = makeState();
    const ctx = makeCtx();
    newTurn(state, call('a', '{}'), call('b', '{}'));
    await stage.execute(state, ctx);
    act(state, fails());
    await history.execute(state, ctx);
    newTurn(state, call('a', '{}'));
    expect(await stage.execute(state, ctx)).toBeUndefined();
    newTurn(state, call('b', '{}'));
    expect(await stage.execute(state, ctx)).toMatchObject({
      kind: 'loop_detected',
      reason: expect.stringContaining('2 refused'),
    });
    const prefilled = makeState();
    const decided = call('a', '{}');
    newTurn(prefilled, decided);
    prefilled.turn.results.push({
      call: decided,
      result: { ok: false, error: { kind: 'refused', message: 'no', retryable: false }, durationMs: 0 },
    });
    await stage.execute(prefilled, ctx);
    await history.execute(prefilled, ctx);
    expect(prefilled.loopGuard).toBeUndefined();
  });

  it("onRepeat 'ask': the gate holds repeated calls (its streak); the guard ends the run when a rejected call is asked again", async () => {
    const { history, ...stage } = loopGuard({ onRepeat: 'ask' });
    const state = makeState();
    const ctx = makeCtx();
    const repeated = call('calculator', '{"expression":"1//"}');
    const fingerprint = callFingerprint(repeated);
    // Failures the gate counted (marked `streak`): the guard leaves the call to the gate.
    for (let turn = 0; turn < 3; turn++) {
      newTurn(state, call('calculator', '{"expression":"1//"}'));
      expect(stage.execute(state, ctx)).toBeUndefined();
      act(state, () => ({ ...fails('bad expression')(), streak: true }));
      await history.execute(state, ctx);
      expect(state.turn.results).toHaveLength(1);
    }
    expect(state.loopGuard).toBeUndefined();
    // A person rejected it (act writes this in the gate's slot): asking again ends the run.
    state.repeatedCalls = {
      calls: { [fingerprint]: { tool: 'calculator', failures: 3, refused: 1, failure: 'bad expression' } },
      refusals: 1,
    };
    newTurn(state, repeated);
    expect(stage.execute(state, ctx)).toMatchObject({ type: 'abort_run', kind: 'loop_detected' });
    newTurn(state, call('calculator', '{"expression":"2//"}'));
    expect(stage.execute(state, ctx)).toBeUndefined();
    // A failure the gate did not count: the run's tools have no repeat rule, which onRepeat 'ask' needs.
    newTurn(state, call('search', '{}'));
    act(state, fails());
    expect(() => history.execute(state, ctx)).toThrow(/approvals: \{ repeatedCalls: \{ limit \} \}/);
    expect(() => loopGuard({ onRepeat: 'never' as 'ask' })).toThrow('onRepeat must be "refuse" or "ask"');
  });

  it('rejects a limit below 2', () => {
    expect(() => loopGuard({ limit: 1 })).toThrow(expect.objectContaining({ code: 'config' }));
    expect(() => loopGuard({ limit: 2.5 })).toThrow('limit must be a whole number of at least 2');
  });
});
