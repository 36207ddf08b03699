// Agent pauses deeper in a team (a grandchild's, two agents' at once) and the approval events of an agent's call;
// apart from agent-pause.test.ts (one child's pause, approved or rejected) to keep each file short.
import { afterEach, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { withApproval } from '../../stages/pipeline-policies.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import type { Deps, RunEvent } from '../../src/engine/stage.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { sendReply, startChatServer } from '../support/chat-server.js';
import { testCalculator } from '../support/stage-tools.js';
import { cleanup, runCleanup, startTeamModel, team } from './agent-pause-team.js';

afterEach(runCleanup);

describe('pauses deeper in the team', () => {
  /** Each model asks the next agent (or, last, the calculator) once, then answers `<name>: <what it got>`. */
  async function startChainModel(
    chain: Array<{ model: string; call: { id: string; name: string; arguments: string } }>,
  ): Promise<string[]> {
    const server = await startChatServer();
    cleanup.push(() => server.close());
    const asked: string[] = [];
    server.handle((request, response) => {
      const results = request.body.messages
        .filter((message) => message.role === 'tool')
        .map((message) => String(message.content));
      asked.push(`${request.body.model}:${results.length}`);
      const step = chain.find((each) => each.model === request.body.model)!;
      if (results.length === 0)
        return sendReply(request, response, { toolCalls: [step.call], usage: { input: 10, output: 5 } });
      return sendReply(request, response, {
        content: `${step.model.replace('-model', '')}: ${results.join(' | ')}`,
        usage: { input: 10, output: 5 },
      });
    }, Number.MAX_SAFE_INTEGER);
    urls.set(asked, server.url);
    return asked;
  }
  const urls = new WeakMap<string[], string>();
  const model = (url: string, name: string) =>
    new OpenAIChatModel({ baseUrl: url, model: name, apiKey: 'sk-test', maxRetries: 0, timeoutMs: 10_000 });
  const task = (text: string) => JSON.stringify({ task: text });

  it("a grandchild's pause pauses all three runs; one decision finishes them, usage exact, replay identical", async () => {
    const asked = await startChainModel([
      { model: 'coordinator-model', call: { id: 'call_r', name: 'researcher', arguments: task('6 * 7?') } },
      { model: 'researcher-model', call: { id: 'call_x', name: 'calc_agent', arguments: task('6 * 7?') } },
      {
        model: 'calc-model',
        call: { id: 'calc_1', name: 'calculator', arguments: JSON.stringify({ expression: '6 * 7' }) },
      },
    ]);
    const url = urls.get(asked)!;
    const calcAgent = agentTool({
      name: 'calc_agent',
      description: 'Calculates.',
      pipeline: withApproval(reactPipeline(), { tools: ['calculator'] }),
      deps: { model: model(url, 'calc-model'), tools: new ToolRegistry([testCalculator]) },
    });
    const researcher = agentTool({
      name: 'researcher',
      description: 'Asks the calculator agent.',
      pipeline: reactPipeline(),
      deps: { model: model(url, 'researcher-model'), tools: new ToolRegistry([calcAgent]) },
    });
    const deps: Partial<Deps> = {
      model: model(url, 'coordinator-model'),
      tools: new ToolRegistry([researcher]),
      ids: { newId: () => 'deep-run' },
      agent: { path: ['coordinator'] },
    };
    const store = memoryStore();
    cleanup.push(() => store.close());
    const paused = await runPipeline(reactPipeline(), { task: 'What is 6 * 7?' }, { store, deps });
    expect(paused.status).toBe('interrupted');
    expect(paused.pending).toEqual([
      expect.objectContaining({
        id: 'call_r/call_x/calc_1',
        tool: 'calculator',
        agent: 'coordinator/researcher/calc_agent',
      }),
    ]);
    expect((await store.get('deep-run.call_r'))?.status).toBe('interrupted');
    expect((await store.get('deep-run.call_r.call_x'))?.status).toBe('interrupted');

    const result = await resumeRun(store, 'deep-run', {
      pipeline: reactPipeline(),
      deps,
      decisions: { 'call_r/call_x/calc_1': { approve: true } },
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'coordinator: researcher: calc: 42' });
    expect(asked).toEqual([
      'coordinator-model:0',
      'researcher-model:0',
      'calc-model:0',
      'calc-model:1',
      'researcher-model:1',
      'coordinator-model:1',
    ]);
    expect(result.usage).toMatchObject({ inputTokens: 60, outputTokens: 30 });
    const replay = await replayRun(store, 'deep-run', { pipeline: reactPipeline() });
    expect(replay.identical, JSON.stringify(replay.divergence)).toBe(true);
  });

  it('two agents paused in one turn: deciding one keeps the run paused for the other, then both finish', async () => {
    const { server, asked } = await startTeamModel([
      { id: 'call_r', name: 'researcher', arguments: task('6 * 7?') },
      { id: 'call_k', name: 'checker', arguments: task('6 * 7?') },
    ]);
    const { deps } = team(server.url, ['researcher', 'checker']);
    const store = memoryStore();
    cleanup.push(() => store.close());
    const paused = await runPipeline(reactPipeline(), { task: 'Ask both.' }, { store, deps });
    expect(paused.pending?.map((item) => item.id)).toEqual(['call_r/calc_1', 'call_k/calc_1']);
    const half = await resumeRun(store, 'team-run', {
      pipeline: reactPipeline(),
      deps,
      decisions: { 'call_k/calc_1': { approve: true } },
    });
    expect(half.status).toBe('interrupted');
    expect(half.pending?.map((item) => item.id)).toEqual(['call_r/calc_1']);
    await expect(
      resumeRun(store, 'team-run', {
        pipeline: reactPipeline(),
        deps,
        decisions: { 'call_k/calc_1': { approve: true } },
      }),
    ).rejects.toThrow(/already decided/);
    const done = await resumeRun(store, 'team-run', {
      pipeline: reactPipeline(),
      deps,
      decisions: { 'call_r/calc_1': { approve: true } },
    });
    expect(done).toMatchObject({ status: 'completed', answer: 'coordinator: researcher: 42 | researcher: 42' });
    expect(asked).toEqual([
      'coordinator-model:0',
      'researcher-model:0',
      'researcher-model:0',
      'researcher-model:1',
      'researcher-model:1',
      'coordinator-model:2',
    ]);
    const replay = await replayRun(store, 'team-run', { pipeline: reactPipeline() });
    expect(replay.identical, JSON.stringify(replay.divergence)).toBe(true);
  });
});

describe("the approval events of an agent's call", () => {
  const request = {
    id: 'call_r/calc_1',
    tool: 'calculator',
    arguments: '{"expression":"6 * 7"}',
    reason: 'the pipeline asks for approval of every calculator call',
    agent: 'coordinator/researcher',
  };
  const decided = (approve: boolean, extra: object = {}) => ({
    iteration: 1,
    id: 'call_r/calc_1',
    tool: 'calculator',
    approve,
    by: 'person',
    agent: 'coordinator/researcher',
    ...extra,
  });

  async function teamWithEvents() {
    const { server } = await startTeamModel();
    const { deps } = team(server.url);
    const store = memoryStore();
    cleanup.push(() => store.close());
    const events: RunEvent[] = [];
    deps.onEvent = (event) => events.push(event);
    // The coordinator's own approval events (its agents' reach the listener too, under their paths).
    const own = () =>
      events
        .splice(0)
        .filter((event) => event.agent === undefined && event.type.startsWith('approval_'))
        .map((event) => [event.type, event.data]);
    return { deps, store, own };
  }

  it("are a plain approval's under the coordinator's id: requested when it pauses; requested and decided on resume", async () => {
    const { deps, store, own } = await teamWithEvents();
    await runPipeline(reactPipeline(), { task: 'Ask the researcher for 6 * 7, and count.' }, { store, deps });
    expect(own()).toEqual([['approval_requested', request]]);
    const result = await resumeRun(store, 'team-run', {
      pipeline: reactPipeline(),
      deps,
      decisions: { 'call_r/calc_1': { approve: false, message: 'not now' } },
    });
    expect(result.status).toBe('completed');
    expect(own()).toEqual([
      ['approval_requested', request],
      ['approval_decided', decided(false, { message: 'not now' })],
    ]);
  });

  it('a person deciding at once: requested, then decided', async () => {
    const { deps, store, own } = await teamWithEvents();
    deps.approve = async () => ({ approve: true });
    const result = await runPipeline(
      reactPipeline(),
      { task: 'Ask the researcher for 6 * 7, and count.' },
      { store, deps },
    );
    expect(result.status).toBe('completed');
    expect(own()).toEqual([
      ['approval_requested', request],
      ['approval_decided', decided(true)],
    ]);
  });
});
