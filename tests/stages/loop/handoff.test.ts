// handoff (after act): a transfer_to_NAME call whose target ran makes the target's answer this run's (breakLoop
// 'handoff'), or its stop this run's stop; a refused handoff and ordinary calls pass; withHandoffs places it.
import { describe, expect, it } from 'vitest';
import { abortRun, breakLoop } from '../../../src/engine/signal.js';
import { reactPipeline } from '../../../pipelines/index.js';
import type { ToolResult } from '../../../src/engine/tool-port.js';
import { handoffStage, withHandoffs } from '../../../stages/loop/handoff.js';
import { makeCtx, makeState } from '../../support/helpers.js';

function afterCalls(...outcomes: Array<[name: string, result: ToolResult]>) {
  const state = makeState({ runId: 'parent' });
  state.turn = {
    toolCalls: [],
    results: outcomes.map(([name, result], index) => ({
      call: { id: `c${index + 1}`, name, arguments: '{}' },
      result,
    })),
  };
  return state;
}
const answered = (content: string, truncated = false): ToolResult => ({
  ok: true,
  content,
  durationMs: 1,
  ...(truncated && { truncated }),
});

describe('handoff', () => {
  it("the target answered: its answer is the run's, the slot and event name it, the loop ends as handoff", async () => {
    const state = afterCalls(
      ['calculator', answered('2')],
      ['transfer_to_billing', answered('Your refund is on its way.')],
    );
    const ctx = makeCtx();
    expect(await handoffStage().execute(state, ctx)).toEqual(
      breakLoop('handed off to billing, which answered', 'handoff'),
    );
    expect(state.answer).toBe('Your refund is on its way.');
    expect(state.partial).not.toBe(true);
    expect(state.handoff).toEqual({
      agent: 'billing',
      runId: 'parent.c2',
      chain: [{ agent: 'billing', runId: 'parent.c2' }],
    });
    expect(ctx.events.filter((event) => event.type === 'handoff').map((event) => event.data)).toEqual([
      { agent: 'billing', runId: 'parent.c2', status: 'completed', answeredBy: 'billing' },
    ]);
  });

  it('an answer cut at the output cap is partial', async () => {
    const state = afterCalls(['transfer_to_billing', answered('Your refund is', true)]);
    await handoffStage().execute(state, makeCtx());
    expect(state.partial).toBe(true);
  });

  it("the target did not finish: its stop kind is the run's (handoff_stopped when it is no plain kind)", async () => {
    const stoppedBy = (stopKind: string): ToolResult => ({
      ok: false,
      durationMs: 1,
      error: {
        kind: 'agent_stopped',
        message: 'the budget was spent',
        retryable: false,
        agent: { name: 'billing', runId: 'parent.c1', status: 'stopped', stopKind },
      },
    });
    const ctx = makeCtx();
    expect(await handoffStage().execute(afterCalls(['transfer_to_billing', stoppedBy('budget_tokens')]), ctx)).toEqual(
      abortRun('handed off to billing, which did not finish: the budget was spent', 'budget_tokens'),
    );
    expect(ctx.events.filter((event) => event.type === 'handoff').map((event) => event.data)).toEqual([
      { agent: 'billing', runId: 'parent.c1', status: 'stopped', answeredBy: 'billing' },
    ]);
    expect(
      await handoffStage().execute(afterCalls(['transfer_to_billing', stoppedBy('Not A Kind!')]), makeCtx()),
    ).toMatchObject({ type: 'abort_run', kind: 'handoff_stopped' });
  });

  it('a refused handoff (no target run) and ordinary calls leave the run to go on', async () => {
    const refused: ToolResult = {
      ok: false,
      durationMs: 1,
      error: { kind: 'refused', message: 'one handoff per turn', retryable: false },
    };
    const state = afterCalls(['calculator', answered('2')], ['transfer_to_billing', refused]);
    expect(await handoffStage().execute(state, makeCtx())).toBeUndefined();
    expect(state.handoff).toBeUndefined();
    expect(state.answer ?? null).toBeNull();
  });

  it('withHandoffs puts the stage right after act', () => {
    const names = withHandoffs(reactPipeline()).iteration.map((stage) => stage.name);
    expect(names[names.indexOf('act') + 1]).toBe('handoff');
  });
});
