// A server's sampling policy (`sampling: 'ask' | 'deny'` in its config), against server-everything as a child process:
// `ask` pauses the run with a decision of kind `sampling` before the run's model is called; a rejection gives the server
// an error and the model is never called for it; an approval runs the call again, its sampling request a journaled
// model call `sampling:everything`, and the run replays identically. `deny` refuses at once; the config checks the key.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { McpServerPool, loadMcpTools } from '../../src/tools/mcp/index.js';
import { runClientHandlers } from '../../src/tools/mcp/run-requests.js';
import type { McpSamplingPolicy } from '../../src/tools/mcp/sampling-gate.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { serverEntry } from '../../app/mcp-server-config.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { everythingStdioServer } from '../support/mcp-servers.js';

const loopback = useLoopbackServer({ timeoutMs: 30_000 });
// Each test starts server-everything as a child process: generous on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });
const pool = new McpServerPool();
afterEach(() => pool.closeAll());

const SAMPLE = 'everything__trigger-sampling-request';
const CALL = { name: SAMPLE, arguments: '{"prompt":"name a colour","maxTokens":40}', id: 'call_1' };

async function tools(policy: McpSamplingPolicy) {
  const handlers = runClientHandlers({ sampling: { everything: policy } });
  return new ToolRegistry(await loadMcpTools([everythingStdioServer()], { pool, handlers }));
}
const toolMessage = () => loopback.server.lastBody!.messages.find((message) => message.role === 'tool')?.content;
const purposes = async (store: ReturnType<typeof memoryStore>, runId: string) =>
  (await store.journal(runId))
    .filter((entry) => entry.kind === 'model')
    .map((entry) => (entry.data as { request: { purpose: string } }).request.purpose);

describe("a server's sampling policy", () => {
  it("ask: pauses before the run's model is called; approved, the request is a journaled model call; replay identical", async () => {
    loopback.server
      .replyWithToolCalls([CALL])
      .replyWith({ content: 'Teal.' })
      .replyWith({ content: 'The server heard teal.' });
    const store = memoryStore();
    const paused = await runPipeline(
      reactPipeline(),
      { task: 'Sample.' },
      { store, deps: { model: loopback.model(), tools: await tools('ask') }, runId: 'ask-sample' },
    );
    expect(paused.status).toBe('interrupted');
    expect(paused.pending).toEqual([
      expect.objectContaining({
        id: 'call_1/sampling-1',
        kind: 'sampling',
        tool: SAMPLE,
        server: 'everything',
        message: expect.stringContaining('name a colour'),
        messages: [
          { role: 'system', content: 'You are a helpful test server.' },
          { role: 'user', content: expect.stringContaining('name a colour') },
        ],
        maxTokens: 40,
      }),
    ]);
    // Only the run's own turn reached the model: the sampling request waits for the person.
    expect(loopback.server.requests.length).toBe(1);

    const done = await resumeRun(store, 'ask-sample', {
      pipeline: reactPipeline(),
      deps: { model: loopback.model(), tools: await tools('ask') },
      decisions: { 'call_1/sampling-1': { approve: true } },
    });
    expect(done).toMatchObject({ status: 'completed', answer: 'The server heard teal.' });
    expect(toolMessage()).toContain('Teal.');
    expect(await purposes(store, 'ask-sample')).toEqual(['think', 'sampling:everything', 'think']);
    const decisions = (await store.journal('ask-sample')).filter((entry) => entry.kind === 'decision');
    expect(decisions.map((entry) => (entry.data as { id?: string }).id)).toEqual(['call_1/sampling-1']);

    await pool.closeAll();
    const before = loopback.server.requests.length;
    const replay = await replayRun(store, 'ask-sample', { pipeline: reactPipeline() });
    expect(replay.identical).toBe(true);
    expect(replay.result.answer).toBe('The server heard teal.');
    expect(loopback.server.requests.length).toBe(before);
  });

  it("ask, rejected: the server gets an error and the run's model is never called for it", async () => {
    loopback.server.replyWithToolCalls([CALL]).replyWith({ content: 'No sample.' });
    const store = memoryStore();
    await runPipeline(
      reactPipeline(),
      { task: 'Sample.' },
      { store, deps: { model: loopback.model(), tools: await tools('ask') }, runId: 'no-sample' },
    );
    const done = await resumeRun(store, 'no-sample', {
      pipeline: reactPipeline(),
      deps: { model: loopback.model(), tools: await tools('ask') },
      decisions: { 'call_1/sampling-1': { approve: false, message: 'not today' } },
    });
    expect(done).toMatchObject({ status: 'completed', answer: 'No sample.' });
    expect(toolMessage()).toMatch(/refused the sampling request of "everything": a person rejected it \(not today\)/);
    expect(await purposes(store, 'no-sample')).toEqual(['think', 'think']);
  });

  it('deny: refused at once, without a pause or a model call', async () => {
    loopback.server.replyWithToolCalls([CALL]).replyWith({ content: 'Denied.' });
    const result = await runPipeline(
      reactPipeline(),
      { task: 'Sample.' },
      { store: memoryStore(), deps: { model: loopback.model(), tools: await tools('deny') } },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'Denied.' });
    expect(toolMessage()).toMatch(/refused the sampling request of "everything": its config says "sampling": "deny"/);
    expect(loopback.server.requests.length).toBe(2);
  });

  it('the config reads `sampling` and refuses another value in one line', () => {
    const entry = { command: 'node', sampling: 'ask' };
    expect(serverEntry('everything', entry, 'mcp.json', {})).toMatchObject({ sampling: 'ask' });
    expect(() => serverEntry('everything', { ...entry, sampling: 'sometimes' }, 'mcp.json', {})).toThrow(
      'mcp.json: mcpServers.everything.sampling must be "allow", "ask" or "deny"; got "sometimes"',
    );
  });
});
