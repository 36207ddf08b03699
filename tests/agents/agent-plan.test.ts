// An agent that pauses for approval inside one of two plan steps running side by side: the whole run pauses with the
// agent's call under the calling step's call id; the other step's call finished and is kept; approving resumes the
// agent where it stopped, both steps finish, nothing finished runs again, and the replay is identical.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { reactPipeline } from '../../pipelines/react.js';
import { withApproval } from '../../stages/pipeline-policies.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import type { Deps, RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel, type ScriptedStep } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { testCalculator } from '../support/stage-tools.js';

const graph = (...steps: Array<{ id: string; description: string; dependsOn: string[] }>) => ({
  content: JSON.stringify({ goal: 'the task', steps }),
});
const keep = { content: '{"need_replan":false,"reason":"on track","new_steps":[]}' };

/** The plan: b asks the researcher, c fetches, side by side; each step then answers, and the run answers. */
const coordinatorSteps = (): ScriptedStep[] => [
  graph(
    { id: 'b', description: 'Ask the researcher for 6 * 7', dependsOn: [] },
    { id: 'c', description: 'Fetch c', dependsOn: [] },
  ),
  // Side by side, a call id carries its step (call_r_b), so the child run and the pause's id carry it too.
  { toolCalls: [{ id: 'call_r', name: 'researcher', arguments: JSON.stringify({ task: 'What is 6 * 7?' }) }] },
  { toolCalls: [{ id: 'call_f', name: 'fetch', arguments: JSON.stringify({ key: 'c' }) }] },
  (request) => ({ content: `B: ${String(request.messages.at(-1)!.content)}` }),
  (request) => ({ content: `C: ${String(request.messages.at(-1)!.content)}` }),
  keep,
  { content: 'The answer is 42, and c has its value.' },
];

/** The researcher asks the calculator (whose calls need approval), then answers with what it got. */
const researcherSteps = (): ScriptedStep[] => [
  { toolCalls: [{ id: 'calc_1', name: 'calculator', arguments: JSON.stringify({ expression: '6 * 7' }) }] },
  (request) => ({ content: `researcher: ${String(request.messages.at(-1)!.content)}` }),
];

function team(
  coordinator: ScriptedModel,
  researcher: ScriptedModel,
  fetched: string[],
  events: RunEvent[],
): Partial<Deps> {
  const fetch = defineTool({
    name: 'fetch',
    description: 'Fetches a value.',
    parameters: z.object({ key: z.string() }),
    effects: 'read',
    execute: ({ key }) => (fetched.push(key), `value of ${key}`),
  });
  const agent = agentTool({
    name: 'researcher',
    description: 'Works out arithmetic.',
    pipeline: withApproval(reactPipeline(), { tools: ['calculator'] }),
    deps: { model: researcher, tools: new ToolRegistry([testCalculator]) },
  });
  return {
    model: coordinator,
    tools: new ToolRegistry([agent, fetch]),
    ids: { newId: () => 'plan-run' },
    agent: { path: ['coordinator'] },
    onEvent: (event) => events.push(event),
  };
}

describe('an agent pausing inside side-by-side plan steps', () => {
  it('pauses the run, keeps the other step, resumes the agent on approval, and replays identically', async () => {
    const store = memoryStore();
    const fetched: string[] = [];
    const events: RunEvent[] = [];
    const [coordinator, researcher] = [new ScriptedModel(coordinatorSteps()), new ScriptedModel(researcherSteps())];
    const paused = await runPipeline(
      planExecuteReplanPipeline(),
      { task: 'Ask the researcher for 6 * 7 and fetch c.' },
      { store, deps: team(coordinator, researcher, fetched, events) },
    );
    expect(paused.status, JSON.stringify(paused.stopReason)).toBe('interrupted');
    expect(paused.pending).toEqual([
      expect.objectContaining({ id: 'call_r_b/calc_1', tool: 'calculator', agent: 'coordinator/researcher' }),
    ]);
    // Both steps ran side by side: c's call finished and is kept.
    expect(events.flatMap((event) => (event.type === 'plan_updated' ? [event.data.running] : []))).toContainEqual([
      'b',
      'c',
    ]);
    expect(fetched).toEqual(['c']);
    expect((await store.get('plan-run.call_r_b'))?.status).toBe('interrupted');
    // The agent's run is not the step's: its journal keeps its own stages (a step's would read `think#b`).
    expect((await store.journal('plan-run.call_r_b')).map((entry) => entry.stage)).not.toContainEqual(
      expect.stringContaining('#'),
    );
    expect(coordinator.requests).toHaveLength(3);
    expect(researcher.requests).toHaveLength(1);

    // A new process: the models carry on from where the recording ends.
    const [coordinatorAfter, researcherAfter] = [
      new ScriptedModel(coordinatorSteps().slice(3)),
      new ScriptedModel(researcherSteps().slice(1)),
    ];
    const result = await resumeRun(store, 'plan-run', {
      pipeline: planExecuteReplanPipeline(),
      deps: team(coordinatorAfter, researcherAfter, fetched, events),
      decisions: { 'call_r_b/calc_1': { approve: true } },
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 42, and c has its value.' });
    coordinatorAfter.assertConsumed();
    researcherAfter.assertConsumed();
    expect(fetched).toEqual(['c']);
    expect(result.state.plan!.steps.map((step) => [step.id, step.status])).toEqual([
      ['b', 'completed'],
      ['c', 'completed'],
    ]);
    const stepResults = Object.fromEntries(result.state.plan!.results.map((entry) => [entry.id, entry.output]));
    expect(stepResults).toEqual({ b: 'B: researcher: 42', c: 'C: value of c' });
    expect((await store.get('plan-run.call_r_b'))?.status).toBe('completed');

    const replay = await replayRun(store, 'plan-run', { pipeline: planExecuteReplanPipeline() });
    expect(replay.identical, JSON.stringify(replay.divergence)).toBe(true);
    expect(replay.result.answer).toBe('The answer is 42, and c has its value.');
    const childReplay = await replayRun(store, 'plan-run.call_r_b', {
      pipeline: withApproval(reactPipeline(), { tools: ['calculator'] }),
    });
    expect(childReplay.identical, JSON.stringify(childReplay.divergence)).toBe(true);
    expect(fetched).toEqual(['c']);
  });
});
