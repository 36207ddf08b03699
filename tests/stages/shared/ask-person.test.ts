// askPerson(): one tool call put to a person through deps.approve. The request is an event; an answer is the
// decision (the wait counted apart from the time budget); no answer, or no one to ask, is the pending decision.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/durable/decisions.js';
import { askPerson } from '../../../stages/shared/ask-person.js';
import { armDeadline, waitedMs } from '../../../stages/shared/person-wait.js';
import { makeClock, makeCtx, makeState, type TestContext } from '../../support/helpers.js';

const contexts: TestContext[] = [];
afterEach(() => contexts.splice(0).forEach((ctx) => ctx.dispose()));
const call = { id: 'c1', name: 'send_email', arguments: '{"to":"a@example.com"}' };

describe('askPerson', () => {
  it('asks through deps.approve and returns the decision; the wait is counted apart from the time budget', async () => {
    const clock = makeClock(1_000);
    const asked: ApprovalRequest[] = [];
    const ctx = makeCtx({
      deps: { clock, approve: async (request) => (asked.push(request), clock.advance(5_000), { approve: true }) },
    });
    contexts.push(ctx);
    const state = makeState();
    armDeadline(state, ctx, 61_000, 'time budget spent', 'budget_time');
    expect(await askPerson(state, ctx, call, 'it writes')).toEqual({ decision: { approve: true } });
    // The request carries the arguments as an object, and their JSON text beside them.
    expect(asked).toEqual([
      {
        id: 'c1',
        tool: 'send_email',
        arguments: { to: 'a@example.com' },
        argumentsJson: '{"to":"a@example.com"}',
        reason: 'it writes',
      },
    ]);
    expect(ctx.events.filter((event) => event.type === 'approval_requested').map((event) => event.data)).toEqual([
      { id: 'c1', tool: 'send_email', arguments: '{"to":"a@example.com"}', reason: 'it writes' },
    ]);
    expect(waitedMs(state)).toBe(5_000);
    expect(ctx.deadlines.at(-1)).toEqual({ at: 66_000, reason: 'time budget spent', kind: 'budget_time' });
  });

  it('no answer now (or no one to ask): the pending decision the run pauses with', async () => {
    const pending = {
      pending: {
        id: 'c1',
        kind: 'tool_approval',
        tool: 'send_email',
        arguments: '{"to":"a@example.com"}',
        reason: 'it writes',
      },
    };
    const unanswered = makeCtx({ deps: { approve: async () => undefined } });
    const nobody = makeCtx();
    contexts.push(unanswered, nobody);
    expect(await askPerson(makeState(), unanswered, call, 'it writes')).toEqual(pending);
    expect(await askPerson(makeState(), nobody, call, 'it writes')).toEqual(pending);
    expect(nobody.events.map((event) => event.type)).toEqual(['approval_requested']);
  });
});
