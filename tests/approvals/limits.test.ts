import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { applyGuards } from '../../pipelines/guards.js';
import { runPipeline } from '../../src/durable/durable-run.js';
import type { LimitDecision, LimitRequest } from '../../src/durable/decisions.js';
import { replayRun } from '../../src/durable/replay.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { loggedCalculator, sum } from './fixtures.js';

const loopback = useLoopbackServer();

/** Each reply costs 15 tokens; a 20-token budget is spent after the second turn. */
async function spend(answer: LimitDecision | undefined) {
  const log: string[] = [];
  const tools = loggedCalculator(log);
  loopback.server
    .replyWithToolCalls([sum('1 + 1')])
    .replyWithToolCalls([sum('2 + 2', 'call_2')])
    .replyWithToolCalls([sum('3 + 3', 'call_3')])
    .replyWith({ content: 'six' });
  const asked: LimitRequest[] = [];
  const store = memoryStore();
  const pipeline = applyGuards(reactPipeline(), { maxTokens: 20 });
  const result = await runPipeline(
    pipeline,
    { task: 'add' },
    { store, deps: { model: loopback.model(), tools, onLimit: async (request) => (asked.push(request), answer) } },
  );
  return { result, asked, log, store, pipeline };
}

describe('a spent budget asks deps.onLimit', () => {
  it('extend: the run goes on past the limit by the amount granted, and a replay reproduces it', async () => {
    const { result, asked, log, store, pipeline } = await spend({ action: 'extend', by: 100 });
    expect(asked).toEqual([{ kind: 'tokens', used: 30, limit: 20 }]);
    expect(result).toMatchObject({ status: 'completed', answer: 'six' });
    expect(log).toEqual(['1 + 1', '2 + 2', '3 + 3']);
    expect(result.state.budget?.extended).toEqual({ tokens: 100 });
    const report = await replayRun(store, result.runId, { pipeline });
    expect(report.identical).toBe(true);
  });

  it('stop: the run stops at once with the budget kind', async () => {
    const { result, log } = await spend({ action: 'stop' });
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'budget_tokens' } });
    expect(result.stopReason.message).toContain('a person stopped the run');
    expect(log).toEqual(['1 + 1', '2 + 2']);
  });

  it.each([{ action: 'finish' } as const, undefined])(
    '%o: the normal graded path (one tools-less final turn)',
    async (answer) => {
      const { result, log } = await spend(answer);
      expect(log).toEqual(['1 + 1', '2 + 2']);
      expect(loopback.server.lastBody?.tools).toBeUndefined();
      expect(result.state.budget?.finalTurn).toMatchObject({ kind: 'tokens' });
    },
  );
});
