// Honest goals: a plan that recovers through the replanner completes; a limit that stops a step reports the limit.
import { describe, expect, it } from 'vitest';
import { fetchCall, graph, keep, runPlan } from './plan-graph-fixtures.js';

const usage = { inputTokens: 400, outputTokens: 100, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };

describe('honest goals', () => {
  it('observe-plan-act "Not achieved returns to Observe for re-planning": a failed step the replanner replaced does not count against the goal; the run completes', async () => {
    const { result, events } = await runPlan(
      [
        graph({ id: 'a', description: 'Fetch a', dependsOn: [] }, { id: 'b', description: 'Use a', dependsOn: ['a'] }),
        { toolCalls: [{ name: 'replan', arguments: '{"reason":"a cannot be fetched"}' }] },
        {
          content: JSON.stringify({
            need_replan: true,
            reason: 'fetch x instead',
            new_steps: [
              { id: 'x', description: 'Fetch x', dependsOn: [] },
              { id: 'y', description: 'Use x', dependsOn: ['x'] },
            ],
          }),
        },
        { toolCalls: [fetchCall('x')] },
        { content: 'X' },
        keep,
        { content: 'Y' },
        keep,
        { content: 'The answer is Y.' },
      ],
      { maxParallelSteps: 1 },
    );
    expect(result.state.plan!.steps.map((step) => [step.id, step.status])).toEqual([
      ['a', 'replaced'],
      ['x', 'completed'],
      ['y', 'completed'],
    ]);
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is Y.', partial: false });
    expect(events.some((event) => event.type === 'goal_not_met')).toBe(false);
  });

  it('observe-plan-act "boundary exceeded leads to Safe Exit": a hard token budget that stops plan steps reports budget_tokens, not goal_not_met', async () => {
    const { result } = await runPlan(
      [
        graph({ id: 'a', description: 'Fetch a', dependsOn: [] }, { id: 'b', description: 'Fetch b', dependsOn: [] }),
        { toolCalls: [fetchCall('a')], usage },
        { toolCalls: [fetchCall('b')], usage },
      ],
      { guards: { maxTokens: 1_000, budgetMode: 'hard' } },
    );
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'budget_tokens' } });
  });
});
