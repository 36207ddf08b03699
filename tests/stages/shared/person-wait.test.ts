import { afterEach, describe, expect, it } from 'vitest';
import { armDeadline, waitBegins, waitedMs, waitEnds } from '../../../stages/shared/person-wait.js';
import { makeClock, makeCtx, makeState, type TestContext } from '../../support/helpers.js';

const contexts: TestContext[] = [];
afterEach(() => contexts.splice(0).forEach((ctx) => ctx.dispose()));

function setUp() {
  const clock = makeClock(1_000);
  const ctx = makeCtx({ deps: { clock } });
  contexts.push(ctx);
  return { clock, ctx, state: makeState() };
}

describe('time spent waiting for a person', () => {
  it('stands the deadline still during a wait and moves it by the wait when it ends', () => {
    const { clock, ctx, state } = setUp();
    armDeadline(state, ctx, 61_000, 'time budget spent', 'budget_time');
    waitBegins(state, ctx);
    expect(ctx.deadlines.at(-1)!.at).toBeGreaterThan(61_000 + 1_000_000_000);
    clock.advance(30_000);
    waitEnds(state, ctx);
    expect(waitedMs(state)).toBe(30_000);
    expect(ctx.deadlines.at(-1)).toEqual({ at: 91_000, reason: 'time budget spent', kind: 'budget_time' });
    // Re-arming the same deadline keeps the waits already counted.
    armDeadline(state, ctx, 61_000, 'time budget spent', 'budget_time');
    expect(ctx.deadlines.at(-1)!.at).toBe(91_000);
  });

  it('a second begin during a wait does not restart it; an end without a begin adds nothing', () => {
    const { clock, ctx, state } = setUp();
    armDeadline(state, ctx, 10_000, 'r', 'k');
    waitEnds(state, ctx);
    expect(waitedMs(state)).toBe(0);
    waitBegins(state, ctx);
    clock.advance(500);
    waitBegins(state, ctx);
    clock.advance(500);
    waitEnds(state, ctx);
    expect(waitedMs(state)).toBe(1_000);
  });

  it('without a time budget nothing is read or written', () => {
    const { clock, ctx, state } = setUp();
    waitBegins(state, ctx);
    clock.advance(5_000);
    waitEnds(state, ctx);
    expect(state.personWait).toBeUndefined();
    expect(waitedMs(state)).toBe(0);
    expect(ctx.deadlines).toEqual([]);
  });
});
