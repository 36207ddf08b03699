// The time limit counts the run's own time, not the time a person took to decide: asked inline, or paused and resumed later.
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { withApproval } from '../../stages/pipeline-policies.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { loggedCalculator, sum } from './fixtures.js';

const loopback = useLoopbackServer();
const minute = 60_000;

/** A clock that moves only when a test moves it: a person's wait is ten minutes without anyone sleeping. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** A ReAct run with a 60 s time limit whose calculator needs a person's approval. */
function timedPipeline(tools: ReturnType<typeof loggedCalculator>) {
  return withApproval(reactPipeline({ guards: { timeoutSeconds: 60 } }), { registry: tools });
}

describe("the time limit and a person's approval", () => {
  it('an approval asked inline that takes ten minutes does not stop a run with a 60 s time limit', async () => {
    const clock = manualClock();
    const log: string[] = [];
    const tools = loggedCalculator(log, true);
    loopback.server.replyWithToolCalls([sum('2 + 3')]).replyWith({ content: 'the answer is 5' });
    const result = await runPipeline(
      timedPipeline(tools),
      { task: 'add' },
      {
        deps: {
          model: loopback.model(),
          tools,
          clock,
          approve: async () => (clock.advance(10 * minute), { approve: true }),
        },
      },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'the answer is 5' });
    expect(log).toEqual(['2 + 3']);
    expect(result.state.personWait?.waitedMs).toBe(10 * minute);
    expect(result.state.budget?.spent.timeMs).toBeLessThan(minute);
  });

  it('a run paused for approval and resumed twenty minutes later finishes within its 60 s time limit', async () => {
    const clock = manualClock();
    const store = memoryStore();
    const log: string[] = [];
    const tools = loggedCalculator(log, true);
    loopback.server.replyWithToolCalls([sum('2 + 3')]).replyWith({ content: 'the answer is 5' });
    const paused = await runPipeline(
      timedPipeline(tools),
      { task: 'add' },
      { store, deps: { model: loopback.model(), tools, clock } },
    );
    expect(paused.status).toBe('interrupted');
    expect(paused.state.personWait?.since).toBe(clock.now());
    clock.advance(20 * minute);
    const resumed = await resumeRun(store, paused.runId, {
      pipeline: timedPipeline(tools),
      deps: { model: loopback.model(), tools, clock },
      decisions: { call_1: { approve: true } },
    });
    expect(resumed).toMatchObject({ status: 'completed', answer: 'the answer is 5' });
    expect(resumed.state.personWait).toMatchObject({ waitedMs: 20 * minute });
    expect(resumed.state.budget?.spent.timeMs).toBeLessThan(minute);
  });

  it("the run's own time still counts: a tool round after the approval that takes past the limit stops it with budget_time", async () => {
    const clock = manualClock();
    const log: string[] = [];
    const tools = loggedCalculator(log, true);
    loopback.server
      .replyWithToolCalls([sum('2 + 3')])
      .replyWithToolCalls([sum('5 + 5', 'call_2')])
      .replyWith({ content: 'the answer is 10' });
    let asked = 0;
    const result = await runPipeline(
      timedPipeline(tools),
      { task: 'add' },
      {
        // The first approval takes ten minutes of a person's time; before the second, the run itself has used two.
        deps: {
          model: loopback.model(),
          tools,
          clock,
          approve: async () => (++asked === 1 ? clock.advance(10 * minute) : undefined, { approve: true }),
          onEvent: (event) => void (event.type === 'tool_result' && clock.advance(2 * minute)),
        },
      },
    );
    expect(result.status).toBe('stopped');
    expect(result.stopReason.kind).toBe('budget_time');
  });
});
