// A child agent's approval pause pauses the coordinator: the coordinator ends `interrupted` with the child's pending
// call under a prefixed id; approving (or rejecting) it resumes the coordinator, which resumes the child with the
// decision, and the whole run finishes as one: nothing finished runs again, usage adds up exactly, replay identical.
import { afterEach, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { withApproval } from '../../stages/pipeline-policies.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import type { Deps } from '../../src/engine/stage.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { RunStore } from '../../src/store/types.js';
import { cleanup, runCleanup, startTeamModel, team } from './agent-pause-team.js';

afterEach(runCleanup);

async function pausedTeam(): Promise<{ store: RunStore; asked: string[]; counted: string[]; deps: Partial<Deps> }> {
  const { server, asked } = await startTeamModel();
  const { deps, counted } = team(server.url);
  const store = memoryStore();
  cleanup.push(() => store.close());
  const paused = await runPipeline(
    reactPipeline(),
    { task: 'Ask the researcher for 6 * 7, and count.' },
    { store, deps },
  );
  expect(paused.status).toBe('interrupted');
  expect(paused.pending).toEqual([
    expect.objectContaining({
      id: 'call_r/calc_1',
      kind: 'tool_approval',
      tool: 'calculator',
      arguments: '{"expression":"6 * 7"}',
      agent: 'coordinator/researcher',
    }),
  ]);
  // The count call of the same batch finished and is kept; the child waits in its own record.
  expect(counted).toEqual(['count']);
  expect((await store.get('team-run.call_r'))?.status).toBe('interrupted');
  expect(asked).toEqual(['coordinator-model:0', 'researcher-model:0']);
  // The coordinator's usage so far already holds what the researcher spent before it paused.
  expect(paused.usage).toMatchObject({ inputTokens: 10 + 10, outputTokens: 10 });
  return { store, asked, counted, deps };
}

describe("a child agent's approval pause pauses the whole run", () => {
  it('approve: the child continues with the decision, its answer reaches the coordinator, usage is exact, replay identical', async () => {
    const { store, asked, counted, deps } = await pausedTeam();
    // The coordinator takes the prefixed id only.
    await expect(
      resumeRun(store, 'team-run', { pipeline: reactPipeline(), deps, decisions: { calc_1: { approve: true } } }),
    ).rejects.toThrow(/waits for call_r\/calc_1/);

    const result = await resumeRun(store, 'team-run', {
      pipeline: reactPipeline(),
      deps,
      decisions: { 'call_r/calc_1': { approve: true } },
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'coordinator: researcher: 42 | counted' });
    // Nothing finished ran again: each model call once, the count tool once.
    expect(asked).toEqual(['coordinator-model:0', 'researcher-model:0', 'researcher-model:1', 'coordinator-model:2']);
    expect(counted).toEqual(['count']);
    // The coordinator's two calls and the researcher's two, exactly.
    expect(result.usage).toMatchObject({ inputTokens: 10 + 12 + 10 + 11, outputTokens: 20 });
    // The agents tree counts the researcher once, with every token of its run (before and after its pause).
    expect(result.agents).toEqual([
      expect.objectContaining({
        name: 'researcher',
        runId: 'team-run.call_r',
        usage: expect.objectContaining({ inputTokens: 10 + 11, outputTokens: 10 }),
        children: [],
      }),
    ]);
    expect((await store.get('team-run.call_r'))?.status).toBe('completed');
    // The decision is journaled in both runs, each under its own id.
    const decisionIds = async (runId: string) =>
      (await store.journal(runId))
        .filter((entry) => entry.kind === 'decision')
        .map((entry) => (entry.data as { id?: string }).id);
    expect(await decisionIds('team-run')).toEqual(['call_r/calc_1']);
    expect(await decisionIds('team-run.call_r')).toEqual(['calc_1']);

    const replay = await replayRun(store, 'team-run', { pipeline: reactPipeline() });
    expect(replay.identical, JSON.stringify(replay.divergence)).toBe(true);
    expect(replay.result.answer).toBe('coordinator: researcher: 42 | counted');
    expect(replay.result.agents).toEqual(result.agents);
    const childReplay = await replayRun(store, 'team-run.call_r', {
      pipeline: withApproval(reactPipeline(), { tools: ['calculator'] }),
    });
    expect(childReplay.identical, JSON.stringify(childReplay.divergence)).toBe(true);
    expect(asked).toHaveLength(4);
  });

  it('reject: the child reads the rejection and answers, and the coordinator completes', async () => {
    const { store, asked, deps } = await pausedTeam();
    const result = await resumeRun(store, 'team-run', {
      pipeline: reactPipeline(),
      deps,
      decisions: { 'call_r/calc_1': { approve: false, message: 'no arithmetic today' } },
    });
    expect(result.status).toBe('completed');
    expect(result.answer).toMatch(/^coordinator: researcher: .*rejected this call: no arithmetic today \| counted$/);
    expect(asked).toEqual(['coordinator-model:0', 'researcher-model:0', 'researcher-model:1', 'coordinator-model:2']);
    const replay = await replayRun(store, 'team-run', { pipeline: reactPipeline() });
    expect(replay.identical, JSON.stringify(replay.divergence)).toBe(true);
  });

  it('a person deciding at once (deps.approve) decides the child call without a pause', async () => {
    const { server, asked } = await startTeamModel();
    const { deps } = team(server.url);
    const store = memoryStore();
    cleanup.push(() => store.close());
    const requests: string[] = [];
    deps.approve = async (request) => (requests.push(request.id), { approve: true });
    const result = await runPipeline(
      reactPipeline(),
      { task: 'Ask the researcher for 6 * 7, and count.' },
      { store, deps },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'coordinator: researcher: 42 | counted' });
    expect(requests).toEqual(['call_r/calc_1']);
    expect(asked).toHaveLength(4);
    const replay = await replayRun(store, 'team-run', { pipeline: reactPipeline() });
    expect(replay.identical, JSON.stringify(replay.divergence)).toBe(true);
  });
});

describe('an agent paused in a run that is not recorded', () => {
  it('cannot be resumed, so it is an agent_stopped error (interrupted) the caller reads, and the caller completes', async () => {
    const { server } = await startTeamModel();
    const { deps } = team(server.url);
    const result = await runPipeline(reactPipeline(), { task: 'Ask the researcher for 6 * 7, and count.' }, { deps });
    expect(result.status).toBe('completed');
    expect(result.answer).toMatch(
      /^coordinator: Error \(agent_stopped\): .*agent "researcher" interrupted \(awaiting_approval\).* \| counted$/,
    );
  });
});
