// A child agent's approval pause pauses the coordinator: the coordinator ends `interrupted` with the child's pending
// call under a prefixed id; approving (or rejecting) it resumes the coordinator, which resumes the child with the
// decision, and the whole run finishes as one: nothing finished runs again, usage adds up exactly, replay identical.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/react.js';
import { withApproval } from '../../stages/pipeline-policies.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import type { Deps, RunEvent } from '../../src/engine/stage.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { RunStore } from '../../src/store/types.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { sendReply, startChatServer, type ChatServer } from '../support/chat-server.js';
import { testCalculator } from '../support/stage-tools.js';

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/**
 * The coordinator asks the researcher and counts once in the same turn, then answers with both results; the
 * researcher asks the calculator (which needs approval), then answers with what it got.
 */
const askResearcherAndCount = [
  { id: 'call_r', name: 'researcher', arguments: JSON.stringify({ task: 'What is 6 * 7?' }) },
  { id: 'call_c', name: 'count', arguments: '{}' },
];

async function startTeamModel(firstCalls = askResearcherAndCount): Promise<{ server: ChatServer; asked: string[] }> {
  const server = await startChatServer();
  const asked: string[] = [];
  server.handle((request, response) => {
    const body = request.body;
    const results = body.messages
      .filter((message) => message.role === 'tool')
      .map((message) => String(message.content));
    asked.push(`${body.model}:${results.length}`);
    const usage = { input: 10 + results.length, output: 5 };
    if (body.model === 'coordinator-model') {
      if (results.length === 0) {
        return sendReply(request, response, { toolCalls: firstCalls, usage });
      }
      return sendReply(request, response, { content: `coordinator: ${results.join(' | ')}`, usage });
    }
    if (results.length === 0)
      return sendReply(request, response, {
        toolCalls: [{ id: 'calc_1', name: 'calculator', arguments: JSON.stringify({ expression: '6 * 7' }) }],
        usage,
      });
    return sendReply(request, response, { content: `researcher: ${results[0]!}`, usage });
  }, Number.MAX_SAFE_INTEGER);
  cleanup.push(() => server.close());
  return { server, asked };
}

function team(serverUrl: string, agentNames = ['researcher']) {
  const model = (name: string) =>
    new OpenAIChatModel({ baseUrl: serverUrl, model: name, apiKey: 'sk-test', maxRetries: 0, timeoutMs: 10_000 });
  const counted: string[] = [];
  const count = defineTool({
    name: 'count',
    description: 'Counts once.',
    parameters: z.object({}),
    execute: () => (counted.push('count'), 'counted'),
  });
  // Every agent asks the researcher's model: it needs the calculator, whose calls need approval.
  const agents = agentNames.map((name) =>
    agentTool({
      name,
      description: 'Works out arithmetic.',
      pipeline: withApproval(reactPipeline(), { tools: ['calculator'] }),
      deps: { model: model('researcher-model'), tools: new ToolRegistry([testCalculator]) },
    }),
  );
  const deps: Partial<Deps> = {
    model: model('coordinator-model'),
    tools: new ToolRegistry([...agents, count]),
    ids: { newId: () => 'team-run' },
    agent: { path: ['coordinator'] },
  };
  return { deps, counted };
}

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
