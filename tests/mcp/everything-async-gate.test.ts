// server-everything's `trigger-elicitation-request-async` in a recorded run: the server asks its question as a task
// of stageloop's (client-tasks.ts), the question still goes through the gate (a pending decision of kind
// `elicitation`), the answer resumes the run, the server reads it through `tasks/result`, and the run replays
// identically without starting the server.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { McpServerPool, loadMcpTools, runClientHandlers } from '../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { everythingStdioServer } from '../support/mcp-servers.js';

const loopback = useLoopbackServer({ timeoutMs: 30_000 });
vi.setConfig({ testTimeout: 120_000 });
const pool = new McpServerPool();
afterEach(() => pool.closeAll());

const ASK = 'everything__trigger-elicitation-request-async';

async function tools() {
  const handlers = runClientHandlers();
  return new ToolRegistry(await loadMcpTools([everythingStdioServer()], { pool, handlers, filter: [ASK.slice(12)] }));
}

describe('a question asked as a task goes through the gate', () => {
  it('pauses with the server form, resumes with the answer the server reads as the task result, replays identically', async () => {
    loopback.server
      .replyWithToolCalls([{ name: ASK, arguments: '{}', id: 'call_1' }])
      .replyWith({ content: 'Thanks.' });
    const store = memoryStore();
    const paused = await runPipeline(
      reactPipeline(),
      { task: 'Ask me.' },
      { store, deps: { model: loopback.model(), tools: await tools() }, runId: 'async-ask' },
    );
    expect(paused.status).toBe('interrupted');
    expect(paused.pending![0]).toMatchObject({
      id: 'call_1/elicitation-1',
      kind: 'elicitation',
      server: 'everything',
      message: 'Please provide inputs for the following fields (async task demo):',
      requestedSchema: { required: ['name'] },
    });
    const done = await resumeRun(store, 'async-ask', {
      pipeline: reactPipeline(),
      deps: { model: loopback.model(), tools: await tools() },
      decisions: { 'call_1/elicitation-1': { approve: true, arguments: { name: 'Ada', favoriteColor: 'Blue' } } },
    });
    expect(done).toMatchObject({ status: 'completed', answer: 'Thanks.' });
    const tool = loopback.server.lastBody!.messages.find((message) => message.role === 'tool')?.content;
    expect(tool).toMatch(/\[COMPLETED\] User provided[\s\S]*Name: Ada[\s\S]*Favorite Color: Blue[\s\S]*Task created: /);

    await pool.closeAll();
    const replay = await replayRun(store, 'async-ask', { pipeline: reactPipeline() });
    expect(replay.identical).toBe(true);
    expect(pool.size).toBe(0);
  });
});
