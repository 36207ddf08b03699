import { describe, expect, it } from 'vitest';
import { history } from '../../../stages/session/history.js';
import { memory } from '../../../stages/session/memory.js';
import { memorySessions } from '../../../src/sessions/memory-sessions.js';
import { sessionScope, type SessionStore } from '../../../src/sessions/types.js';
import type { RunStatus } from '../../../src/engine/state.js';
import { makeCtx, makeState } from '../../support/helpers.js';

const scope = sessionScope('trip');

/** One turn of session "trip" through history then memory, as a run's setup and finalize would. */
async function turn(
  sessions: SessionStore,
  task: string,
  answer: string,
  status: RunStatus = 'completed',
  stage = memory({ summarizer: 'extractive' }),
) {
  // Each turn its own run: a second turn of one run replaces the first (a resumed turn).
  const state = makeState({ runId: `run-${task}`, input: { task, session: 'trip' } });
  await history().execute(state, makeCtx({ zone: 'setup', deps: { sessions } }));
  state.answer = answer;
  state.stop = { kind: status, stage: null, message: '', status };
  state.observe = {
    step: null,
    results: [
      {
        tool: 'remember',
        arguments: '{}',
        ok: true,
        content: JSON.stringify({ remembered: { key: 'city', value: 'Lisbon' } }),
      },
    ],
  };
  const ctx = makeCtx({ zone: 'finalize', deps: { sessions } });
  await stage.execute(state, ctx);
  return { state, ctx };
}

describe('memory stage', () => {
  it("appends the turn with the tools it relied on; facts are the remember call's to write, not its", async () => {
    const sessions = memorySessions();
    const { state } = await turn(sessions, 'Remember I go to Lisbon', 'Noted.');
    expect(state.memory).toEqual({ turn: 1 });
    const loaded = await sessions.load(scope);
    expect(loaded.turns).toMatchObject([
      { seq: 1, task: 'Remember I go to Lisbon', answer: 'Noted.', tools: [expect.stringContaining('remember(')] },
    ]);
    // A replay serves remember's result without running it: reading results back here would write the fact again.
    expect(loaded.facts).toEqual([]);
  });

  it('keeps a stopped turn with its status, and no turn of a run waiting for a person', async () => {
    const sessions = memorySessions();
    await turn(sessions, 'Plan the trip', 'Day 1: Alfama', 'stopped');
    const waiting = await turn(sessions, 'Book it', '', 'interrupted');
    expect(waiting.state.memory).toEqual({});
    const loaded = await sessions.load(scope);
    expect(loaded.turns.map((kept) => [kept.task, kept.status])).toEqual([['Plan the trip', 'stopped']]);
  });

  it('past its budget folds the oldest turns into an extractive summary, the latest turn always kept', async () => {
    const sessions = memorySessions();
    const small = memory({ budgetTokens: 40, summarizer: 'extractive' });
    for (let index = 1; index <= 4; index++)
      await turn(
        sessions,
        `What is ${index} * 100? Please show the working.`,
        `${index} * 100 = ${index * 100}`,
        'completed',
        small,
      );
    const loaded = await sessions.load(scope);
    // One line per folded turn, the oldest dropped past four characters per budget token.
    expect(loaded.summary).toContain('Answer: 3 * 100 = 300');
    expect(loaded.summary.length).toBeLessThanOrEqual(40 * 4);
    expect(loaded.turns.length).toBeLessThan(4);
    expect(loaded.turns.at(-1)?.task).toBe('What is 4 * 100? Please show the working.');
    const last = await turn(sessions, 'What is 5 * 100? Please show the working.', '5 * 100 = 500', 'completed', small);
    expect(last.state.memory?.compaction).toMatchObject({ summarizer: 'extractive' });
    expect(last.ctx.events.map((event) => event.type)).toContain('session_compacted');
  });

  it('refuses a budget share outside (0, 1] and a budget that is not a whole number of tokens', () => {
    expect(() => memory({ budgetFraction: 0 })).toThrow('memory: budgetFraction must be in (0, 1], got 0');
    expect(() => memory({ budgetTokens: 1.5 })).toThrow('memory: budgetTokens must be a whole number above 0, got 1.5');
  });
});
