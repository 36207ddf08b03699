import { describe, expect, it } from 'vitest';
import { history } from '../../../stages/session/history.js';
import { memorySessions } from '../../../src/sessions/memory-sessions.js';
import { sessionScope } from '../../../src/sessions/types.js';
import { makeCtx, makeState } from '../../support/helpers.js';

const input = (session?: string, user?: string) => ({
  task: 'Add 10 to that',
  ...(session === undefined ? {} : { session }),
  ...(user === undefined ? {} : { user }),
});

describe('history stage', () => {
  it("loads the session's summary, turns and facts into the history slot and says how much it loaded", async () => {
    const sessions = memorySessions();
    const scope = sessionScope('trip', 'ana');
    await sessions.appendTurn(scope, { runId: 'run-1', task: 'What is 12 * 12?', answer: '144', tools: [], at: 1 });
    await sessions.setFact(scope, { key: 'city', value: 'Lisbon', sourceRun: 'run-1', updated: 1 });
    const state = makeState({ input: input('trip', 'ana') });
    const ctx = makeCtx({ zone: 'setup', deps: { sessions } });
    await history().execute(state, ctx);
    expect(state.history).toMatchObject({
      user: 'ana',
      session: 'trip',
      summary: '',
      turns: [{ seq: 1, task: 'What is 12 * 12?', answer: '144' }],
      facts: [{ key: 'city', value: 'Lisbon' }],
    });
    expect(ctx.events.map((event) => [event.type, event.data])).toEqual([
      ['history_loaded', { session: 'trip', turns: 1, facts: 1, summary: false }],
    ]);
  });

  it("another user's session of the same name is not loaded", async () => {
    const sessions = memorySessions();
    await sessions.appendTurn(sessionScope('trip', 'ana'), {
      runId: 'run-1',
      task: 'What is 12 * 12?',
      answer: '144',
      tools: [],
      at: 1,
    });
    const state = makeState({ input: input('trip', 'ben') });
    await history().execute(state, makeCtx({ zone: 'setup', deps: { sessions } }));
    expect(state.history?.turns).toEqual([]);
  });

  it('does nothing for a run without a session; one with a session but no store is skipped with stage_skipped (eight-stage "Anything not injected is simply skipped")', async () => {
    const state = makeState({ input: input() });
    const ctx = makeCtx({ zone: 'setup' });
    await history().execute(state, ctx);
    expect(state.history).toBeUndefined();
    expect(ctx.events).toEqual([]);
    const skipped = makeState({ input: input('trip') });
    const skippedCtx = makeCtx({ zone: 'setup' });
    await history().execute(skipped, skippedCtx);
    expect(skipped.history).toBeUndefined();
    expect(skippedCtx.events).toMatchObject([
      {
        type: 'stage_skipped',
        data: {
          missing: 'deps.sessions',
          effect: "the session's earlier turns and facts are not loaded",
          fix: 'pass a SessionStore as deps.sessions (the CLI keeps one under STAGELOOP_HOME)',
        },
      },
    ]);
  });
});
