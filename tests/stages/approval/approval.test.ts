import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../../pipelines/plan-execute-replan.js';
import { withApproval } from '../../../stages/pipeline-policies.js';
import { resumeRun, runPipeline } from '../../../src/durable/durable-run.js';
import type { Decision } from '../../../src/durable/decisions.js';
import { replayRun } from '../../../src/durable/replay.js';
import type { RunEvent } from '../../../src/engine/stage.js';
import { memoryStore } from '../../../src/store/memory-store.js';
import { useLoopbackServer } from '../../support/loopback-model.js';
import { approvalPipeline, loggedCalculator, sum } from '../../approvals/fixtures.js';

const loopback = useLoopbackServer();

/** The model asks for the calculator, then answers with what the tool message said. */
function scriptTurns(calls = [sum('2 + 3')]) {
  loopback.server.replyWithToolCalls(calls).replyWith({ content: 'the answer is 5' });
}

function toolMessages(body: { messages: Array<{ role: string; content?: string | null }> } | undefined) {
  return (body?.messages ?? []).filter((message) => message.role === 'tool').map((message) => message.content);
}

describe('pausing for approval', () => {
  it('pauses before a flagged call: interrupted, pending listed, finalize not run, the tool not run', async () => {
    const store = memoryStore();
    const log: string[] = [];
    scriptTurns();
    const events: RunEvent[] = [];
    const result = await runPipeline(
      approvalPipeline(loggedCalculator(log, true)),
      { task: 'add' },
      {
        store,
        deps: { model: loopback.model(), tools: loggedCalculator(log, true), onEvent: (event) => events.push(event) },
      },
    );
    expect(result.status).toBe('interrupted');
    expect(result.stopReason).toMatchObject({ kind: 'awaiting_approval', stage: 'approval' });
    expect(result.pending).toEqual([
      {
        id: 'call_1',
        kind: 'tool_approval',
        tool: 'calculator',
        arguments: '{"expression":"2 + 3"}',
        reason: 'the calculator tool asks for approval of every call',
      },
    ]);
    expect(result.stages.find((stage) => stage.name === 'summarize')?.calls).toBe(0);
    expect(result.state.stop).toBeUndefined();
    expect(log).toEqual([]);
    expect(loopback.server.requests).toHaveLength(1);
    expect(events.filter((event) => event.type === 'approval_requested').map((event) => event.data)).toEqual([
      {
        id: 'call_1',
        tool: 'calculator',
        arguments: '{"expression":"2 + 3"}',
        reason: 'the calculator tool asks for approval of every call',
      },
    ]);
    const stored = await store.get(result.runId);
    expect(stored).toMatchObject({ status: 'interrupted', owner: null, leaseUntil: null });
    expect(stored?.outcome?.result.pending).toEqual(result.pending);
  });

  it('a needsApproval function decides per call, and a tool without one runs unasked', async () => {
    const log: string[] = [];
    const tools = loggedCalculator(log, (args) => args.expression.includes('9'));
    loopback.server.replyWithToolCalls([sum('1 + 1', 'call_a'), sum('9 + 9', 'call_b')]).replyWith({ content: 'done' });
    const result = await runPipeline(
      approvalPipeline(tools),
      { task: 'add' },
      { store: memoryStore(), deps: { model: loopback.model(), tools } },
    );
    expect(result.pending?.map((item) => item.id)).toEqual(['call_b']);
    expect(log).toEqual([]); // act waits for the whole turn to be decided
  });
});

describe('resuming with decisions', () => {
  async function pausedThenResumed(decision: Decision) {
    const store = memoryStore();
    const log: string[] = [];
    const tools = loggedCalculator(log, true);
    scriptTurns();
    const paused = await runPipeline(
      approvalPipeline(tools),
      { task: 'add' },
      { store, deps: { model: loopback.model(), tools } },
    );
    const resumed = await resumeRun(store, paused.runId, {
      pipeline: approvalPipeline(tools),
      deps: { model: loopback.model(), tools },
      decisions: { call_1: decision },
    });
    const requests = loopback.server.requests.map((request) => request.body);
    return { store, log, paused, resumed, requests };
  }

  async function decidedLive(decision: Decision) {
    const log: string[] = [];
    const tools = loggedCalculator(log, true);
    const before = loopback.server.requests.length;
    scriptTurns();
    const result = await runPipeline(
      approvalPipeline(tools),
      { task: 'add' },
      { deps: { model: loopback.model(), tools, approve: async () => decision } },
    );
    return { log, result, requests: loopback.server.requests.slice(before).map((request) => request.body) };
  }

  it('approve: the tool runs exactly once, the model call that asked is not repeated, and it ends as a live approval would', async () => {
    const { log, resumed, requests } = await pausedThenResumed({ approve: true });
    expect(resumed).toMatchObject({ status: 'completed', answer: 'the answer is 5' });
    expect(log).toEqual(['2 + 3']);
    expect(requests).toHaveLength(2);
    const live = await decidedLive({ approve: true });
    expect(live.log).toEqual(['2 + 3']);
    expect(resumed.state.messages).toEqual(live.result.state.messages);
    expect(requests).toEqual(live.requests);
    expect(resumed.state.approval?.log).toEqual([
      { iteration: 1, id: 'call_1', tool: 'calculator', approve: true, by: 'person' },
    ]);
  });

  it('reject: the tool never runs and the model reads a refused error with the message', async () => {
    const { log, resumed, requests, store } = await pausedThenResumed({ approve: false, message: 'not on a Friday' });
    expect(resumed.status).toBe('completed');
    expect(log).toEqual([]);
    expect(toolMessages(requests[1])[0]).toContain('rejected this call: not on a Friday');
    expect(resumed.state.turn.results).toEqual([]); // a new turn; the refusal went to the model
    const journal = await store.journal(resumed.runId);
    expect(journal.filter((entry) => entry.kind === 'decision').map((entry) => entry.data)).toEqual([
      { type: 'approval', id: 'call_1', answer: { approve: false, message: 'not on a Friday' } },
    ]);
    const live = await decidedLive({ approve: false, message: 'not on a Friday' });
    expect(resumed.state.messages).toEqual(live.result.state.messages);
  });

  it("edit: valid arguments run instead of the model's; invalid ones are refused with the validation error", async () => {
    const edited = await pausedThenResumed({ approve: true, arguments: { expression: '40 + 2' } });
    expect(edited.log).toEqual(['40 + 2']);
    expect(toolMessages(edited.requests[1])[0]).toContain('42');
    loopback.server.requests.length = 0;
    const invalid = await pausedThenResumed({ approve: true, arguments: { expression: 'rm -rf /' } });
    expect(invalid.log).toEqual([]);
    expect(toolMessages(invalid.requests[1])[0]).toMatch(
      /edited arguments for calculator are invalid:[\s\S]*sum of two whole numbers/,
    );
  });

  it('several calls in one turn are decided separately, across two resumes', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const tools = loggedCalculator(log, true);
    loopback.server.replyWithToolCalls([sum('1 + 1', 'call_a'), sum('2 + 2', 'call_b')]).replyWith({ content: 'done' });
    const paused = await runPipeline(
      approvalPipeline(tools),
      { task: 'add' },
      { store, deps: { model: loopback.model(), tools } },
    );
    expect(paused.pending?.map((item) => item.id)).toEqual(['call_a', 'call_b']);
    const resume = (decisions: Record<string, Decision>) =>
      resumeRun(store, paused.runId, {
        pipeline: approvalPipeline(tools),
        deps: { model: loopback.model(), tools },
        decisions,
      });
    const half = await resume({ call_b: { approve: false, message: 'no' } });
    expect(half.status).toBe('interrupted');
    expect(half.pending?.map((item) => item.id)).toEqual(['call_a']);
    expect(log).toEqual([]);
    await expect(resume({ call_b: { approve: true } })).rejects.toThrow(/call call_b of run .* was already decided/);
    const done = await resume({ call_a: { approve: true } });
    expect(done.status).toBe('completed');
    expect(log).toEqual(['1 + 1']);
    const messages = toolMessages(loopback.server.lastBody);
    expect(messages[0]).toBe('2');
    expect(messages[1]).toContain('rejected this call: no');
    expect(loopback.server.requests).toHaveLength(2);
    // Decided out of order (the second call first): each recorded decision is served to its own call.
    const replay = await replayRun(store, paused.runId, { pipeline: approvalPipeline(tools) });
    expect(replay.identical, JSON.stringify(replay.divergence)).toBe(true);
  });

  it('a paused and resumed run replays offline, identical, without calling the tool', async () => {
    const { store, resumed, log } = await pausedThenResumed({ approve: true });
    const requestsBefore = loopback.server.requests.length;
    const report = await replayRun(store, resumed.runId, { pipeline: approvalPipeline(loggedCalculator(log, true)) });
    expect(report.divergence).toBeUndefined();
    expect(report.identical).toBe(true);
    expect(report.result).toMatchObject({ status: 'completed', answer: 'the answer is 5' });
    expect(log).toEqual(['2 + 3']);
    expect(loopback.server.requests).toHaveLength(requestsBefore);
  });

  it('"always" holds for the rest of the run and is recorded', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const tools = loggedCalculator(log, true);
    loopback.server
      .replyWithToolCalls([sum('1 + 1', 'call_a')])
      .replyWithToolCalls([sum('2 + 2', 'call_b')])
      .replyWith({ content: 'done' });
    let asked = 0;
    const result = await runPipeline(
      approvalPipeline(tools),
      { task: 'add' },
      {
        store,
        deps: { model: loopback.model(), tools, approve: async () => (asked++, { approve: true, always: true }) },
      },
    );
    expect(result.status).toBe('completed');
    expect(asked).toBe(1);
    expect(log).toEqual(['1 + 1', '2 + 2']);
    expect(result.state.approval?.log.map((entry) => entry.by)).toEqual(['person', 'always']);
    const report = await replayRun(store, result.runId, { pipeline: approvalPipeline(tools) });
    expect(report.identical).toBe(true);
  });

  it('inside a Plan-Execute-Replan step', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const tools = loggedCalculator(log, true);
    const pipeline = () => withApproval(planExecuteReplanPipeline(), { registry: tools });
    loopback.server
      .replyWith({ content: JSON.stringify({ steps: [{ description: 'add the numbers', status: 'pending' }] }) })
      .replyWithToolCalls([sum('3 + 4')])
      .replyWith({ content: '7' })
      .replyWith({ content: '{"need_replan":false,"reason":"on track","new_steps":[]}' })
      .replyWith({ content: 'The answer is 7.' });
    const paused = await runPipeline(
      pipeline(),
      { task: 'add 3 and 4' },
      { store, deps: { model: loopback.model(), tools } },
    );
    expect(paused.status).toBe('interrupted');
    expect(paused.state.plan?.steps[0]?.status).toBe('in_progress');
    const done = await resumeRun(store, paused.runId, {
      pipeline: pipeline(),
      deps: { model: loopback.model(), tools },
      decisions: { call_1: { approve: true } },
    });
    expect(log).toEqual(['3 + 4']);
    expect(done).toMatchObject({ status: 'completed', answer: 'The answer is 7.' });
    expect(done.state.plan?.results.map((entry) => [entry.step, entry.outcome, entry.output])).toEqual([
      [1, 'completed', '7'],
    ]);
    // the plan call and the step's tool-asking call were made once each
    expect(loopback.server.requests).toHaveLength(5);
  });
});

describe('wrong decisions change nothing', () => {
  it('an unknown id, a run that is not interrupted, a malformed decision: one clear error, the stored run unchanged', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const tools = loggedCalculator(log, true);
    scriptTurns();
    const paused = await runPipeline(
      approvalPipeline(tools),
      { task: 'add' },
      { store, deps: { model: loopback.model(), tools } },
    );
    const before = { run: await store.get(paused.runId), journal: await store.journal(paused.runId) };
    const resume = (decisions: Record<string, unknown>) =>
      resumeRun(store, paused.runId, {
        pipeline: approvalPipeline(tools),
        deps: { model: loopback.model(), tools },
        decisions: decisions as Record<string, Decision>,
      });
    await expect(resume({ call_9: { approve: true } })).rejects.toThrow(
      `run ${paused.runId} has no pending call call_9: it waits for call_1`,
    );
    await expect(resume({ call_1: { approve: 'yes' } })).rejects.toThrow(
      'the decision for call call_1 needs "approve": true or false',
    );
    await expect(resume({ call_1: { approve: true, message: 'x' } })).rejects.toThrow(/gives a message/);
    await expect(resume({ call_1: { approve: false, arguments: {} } })).rejects.toThrow(
      /rejects the call but also gives arguments/,
    );
    await expect(resume({ call_1: { approve: true, colour: 'red' } })).rejects.toThrow(/unknown field "colour"/);
    expect({ run: await store.get(paused.runId), journal: await store.journal(paused.runId) }).toEqual(before);
    const done = await resume({ call_1: { approve: true } });
    expect(done.status).toBe('completed');
    await expect(resume({ call_1: { approve: true } })).rejects.toThrow(
      `run ${paused.runId} is not waiting for a decision (it is completed)`,
    );
  });
});
