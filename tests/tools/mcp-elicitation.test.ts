// Elicitation through the tool gate, against server-everything as a child process: its question pauses a recorded
// run like an approval (a pending decision of kind `elicitation` with the server's form); the answer resumes it, the
// server gets the answer, and the run replays identically without starting the server. A run with no person declines.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { runPipeline as runOnce } from '../../src/engine/runner.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { McpServerPool, loadMcpTools } from '../../src/tools/mcp/index.js';
import { runClientHandlers } from '../../src/tools/mcp/run-requests.js';
import { elicitationProblem } from '../../src/tools/mcp/elicitation.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { everythingStdioServer } from '../support/mcp-servers.js';

const loopback = useLoopbackServer({ timeoutMs: 30_000 });
// Each test starts server-everything as a child process: generous on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });
const pool = new McpServerPool();
afterEach(() => pool.closeAll());

const ASK = 'everything__trigger-elicitation-request';

async function tools() {
  const handlers = runClientHandlers();
  return new ToolRegistry(await loadMcpTools([everythingStdioServer()], { pool, handlers, filter: () => true }));
}

const toolMessage = () => loopback.server.lastBody!.messages.find((message) => message.role === 'tool')?.content;

describe('elicitation through the gate', () => {
  it('pauses with the server form, resumes with the answer, and replays identically', async () => {
    loopback.server
      .replyWithToolCalls([{ name: ASK, arguments: '{}', id: 'call_1' }])
      .replyWith({ content: 'Thanks.' });
    const store = memoryStore();
    const deps = { model: loopback.model(), tools: await tools() };
    const paused = await runPipeline(reactPipeline(), { task: 'Ask me.' }, { store, deps, runId: 'ask-run' });
    expect(paused.status).toBe('interrupted');
    const [pending] = paused.pending!;
    expect(pending).toMatchObject({
      id: 'call_1/elicitation-1',
      kind: 'elicitation',
      tool: ASK,
      server: 'everything',
      mode: 'form',
      message: 'Please provide inputs for the following fields:',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    // A wrong answer is one line naming the form's fields; a right one fills it.
    const wrong = await elicitationProblem(pending!, { approve: true, arguments: { integer: 500 } });
    expect(wrong).toMatch(/does not fill the server's form .*integer.*fields are name, check/);
    const answer = { name: 'Ada Lovelace', check: true, integer: 7, untitledMultipleSelectEnum: ['Piano'] };
    expect(await elicitationProblem(pending!, { approve: true, arguments: answer })).toBeUndefined();

    const done = await resumeRun(store, 'ask-run', {
      pipeline: reactPipeline(),
      deps: { model: loopback.model(), tools: await tools() },
      decisions: { 'call_1/elicitation-1': { approve: true, arguments: answer } },
    });
    expect(done).toMatchObject({ status: 'completed', answer: 'Thanks.' });
    // The server got the answer, with the form's defaults filled in.
    expect(toolMessage()).toContain('"action": "accept"');
    expect(toolMessage()).toContain('Ada Lovelace');
    expect(toolMessage()).toContain('It was a dark and stormy night.');
    const decisions = (await store.journal('ask-run')).filter((entry) => entry.kind === 'decision');
    expect(decisions.map((entry) => (entry.data as { id?: string }).id)).toEqual(['call_1/elicitation-1']);

    await pool.closeAll();
    const replay = await replayRun(store, 'ask-run', { pipeline: reactPipeline() });
    expect(replay.identical).toBe(true);
    expect(replay.result.answer).toBe('Thanks.');
    expect(pool.size).toBe(0);
  });

  it('a rejection declines and "cancel" cancels: the server learns which', async () => {
    for (const [message, action] of [
      ['not now', 'decline'],
      ['cancel', 'cancel'],
    ] as const) {
      loopback.server.replyWithToolCalls([{ name: ASK, arguments: '{}', id: 'call_1' }]).replyWith({ content: 'OK.' });
      const store = memoryStore();
      const paused = await runPipeline(
        reactPipeline(),
        { task: 'Ask me.' },
        { store, deps: { model: loopback.model(), tools: await tools() }, runId: `no-${action}` },
      );
      expect(paused.status).toBe('interrupted');
      const done = await resumeRun(store, `no-${action}`, {
        pipeline: reactPipeline(),
        deps: { model: loopback.model(), tools: await tools() },
        decisions: { 'call_1/elicitation-1': { approve: false, message } },
      });
      expect(done.status).toBe('completed');
      expect(toolMessage()).toContain(`"action": "${action}"`);
    }
  });

  it('a run with no person (no store, no approve) declines at once', async () => {
    loopback.server.replyWithToolCalls([{ name: ASK, arguments: '{}', id: 'call_1' }]).replyWith({ content: 'OK.' });
    const result = await runOnce(
      reactPipeline(),
      { task: 'Ask me.' },
      { deps: { model: loopback.model(), tools: await tools() } },
    );
    expect(result.status).toBe('completed');
    expect(toolMessage()).toContain('"action": "decline"');
  });
});
