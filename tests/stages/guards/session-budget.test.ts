// The session budget stage alone: the session's earlier turns (history.spent) plus this turn's usage against the caps;
// spent before the turn stops at once, crossed during it grants one tools-less answer (soft) or stops (hard).
import { describe, expect, it } from 'vitest';
import { sessionBudget } from '../../../stages/guards/session-budget.js';
import { makeCtx, makeState } from '../../support/helpers.js';

function sessionState(spentTokens: number) {
  const state = makeState();
  state.history = {
    user: 'u',
    session: 's',
    summary: '',
    turns: [],
    facts: [],
    spent: { tokens: spentTokens, costUsd: 0 },
  };
  return state;
}

describe('sessionBudget', () => {
  it('a turn without a session is not its concern', async () => {
    const state = makeState();
    state.usage.inputTokens = 10_000;
    expect(await sessionBudget({ maxTokens: 100 }).execute(state, makeCtx())).toBeUndefined();
  });

  it('spent by earlier turns: the turn stops before its model call with budget_session', async () => {
    const ctx = makeCtx();
    const signal = await sessionBudget({ maxTokens: 100 }).execute(sessionState(120), ctx);
    expect(signal).toMatchObject({ type: 'abort_run', kind: 'budget_session' });
    expect(ctx.events).toEqual([
      expect.objectContaining({
        type: 'session_budget_spent',
        data: { kind: 'tokens', used: 120, limit: 100, action: 'stop' },
      }),
    ]);
  });

  it('crossed during the turn: one tools-less answer (soft), then a stop; hard mode stops at once', async () => {
    const state = sessionState(60);
    state.usage.inputTokens = 30;
    state.usage.outputTokens = 20;
    const stage = sessionBudget({ maxTokens: 100 });
    expect(await stage.execute(state, makeCtx())).toBeUndefined();
    expect(state.nextTurn.withoutTools).toBe(true);
    expect(state.nextTurn.limit).toMatchObject({ kind: 'budget_session' });
    state.iteration += 1;
    expect(await stage.execute(state, makeCtx())).toMatchObject({ type: 'abort_run', kind: 'budget_session' });

    const hard = sessionState(60);
    hard.usage.inputTokens = 50;
    expect(await sessionBudget({ maxTokens: 100, mode: 'hard' }).execute(hard, makeCtx())).toMatchObject({
      type: 'abort_run',
      kind: 'budget_session',
    });
  });

  it('under the cap: nothing happens; a bad cap is a config error naming it', async () => {
    const state = sessionState(10);
    expect(await sessionBudget({ maxTokens: 100 }).execute(state, makeCtx())).toBeUndefined();
    expect(() => sessionBudget({ maxTokens: -1 })).toThrow(/maxTokens must be a positive number/);
    expect(() => sessionBudget({})).toThrow(/give maxTokens or maxCostUsd/);
  });
});
