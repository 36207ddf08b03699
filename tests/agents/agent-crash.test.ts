// kill -9 inside a child agent's tool call, then resume: no finished call of the coordinator or the child runs again,
// the answer and usage are those of an uninterrupted run, and a replay of the coordinator is identical.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { showCommand } from '../../app/cli/show-command.js';
import { loadRunTree } from '../../src/durable/run-tree.js';
import { replayRun } from '../../src/durable/replay.js';
import { openStore } from '../../src/store/location.js';
import { sendReply, startChatServer, type ChatServer } from '../support/chat-server.js';
import { reactPipeline } from '../../pipelines/react.js';
import type { AgentCrashConfig } from './agent-crash-child.js';

const repository = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const childScript = join(repository, 'tests/agents/agent-crash-child.ts');

/** The coordinator asks the researcher once (or hands off to it), then answers with what it got; the researcher counts two steps. */
async function startTeamModel(handoff = false): Promise<{ server: ChatServer; asked: string[] }> {
  const server = await startChatServer();
  const asked: string[] = [];
  server.handle((request, response) => {
    const body = request.body;
    const results = body.messages.filter((message) => message.role === 'tool');
    asked.push(`${body.model}:${results.length}`);
    const usage = { input: 10 + results.length, output: 5 };
    if (body.model === 'coordinator-model') {
      if (handoff)
        return sendReply(request, response, {
          toolCalls: [{ id: 'call_r', name: 'transfer_to_researcher', arguments: '{}' }],
          usage,
        });
      if (results.length === 0)
        return sendReply(request, response, {
          toolCalls: [{ id: 'call_r', name: 'researcher', arguments: JSON.stringify({ task: 'Count to two' }) }],
          usage,
        });
      return sendReply(request, response, { content: `coordinator: ${results[0]!.content}`, usage });
    }
    if (results.length < 2)
      return sendReply(request, response, {
        toolCalls: [
          { id: `count_${results.length + 1}`, name: 'count', arguments: JSON.stringify({ step: results.length + 1 }) },
        ],
        usage,
      });
    return sendReply(request, response, { content: 'counted to 2', usage });
  }, Number.MAX_SAFE_INTEGER);
  return { server, asked };
}

function startChild(config: AgentCrashConfig) {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, JSON.stringify(config)], {
    cwd: repository,
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
    for (const waiter of waiters.filter((entry) => stdout.includes(entry.text))) waiter.resolve();
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => void (stderr += text));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return {
    child,
    exited,
    output: () => stdout,
    errors: () => stderr,
    waitFor: (text: string) =>
      new Promise<void>((done, fail) => {
        if (stdout.includes(text)) return done();
        waiters.push({ text, resolve: done });
        void exited.then(() => fail(new Error(`the child exited before printing "${text}": ${stderr}`)));
      }),
  };
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('a team of agents survives kill -9', () => {
  it('resumes inside the child agent: nothing finished runs again, same answer and usage, replay identical', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'stageloop-agent-crash-'));
    const { server, asked } = await startTeamModel();
    cleanup.push(
      () => rmSync(directory, { recursive: true, force: true }),
      () => server.close(),
    );
    const config: AgentCrashConfig = {
      db: join(directory, 'runs.db'),
      runId: 'team-run',
      action: 'start',
      serverUrl: server.url,
      sideLog: join(directory, 'side.log'),
      attempt: 1,
    };

    const first = startChild(config);
    await first.waitFor('tool 2');
    first.child.kill('SIGKILL');
    await first.exited;
    expect(asked).toEqual(['coordinator-model:0', 'researcher-model:0', 'researcher-model:1']);

    const second = startChild({ ...config, action: 'resume', attempt: 2 });
    expect(await second.exited, second.errors()).toBe(0);
    const result = JSON.parse(/result (.*)/.exec(second.output())![1]!) as {
      status: string;
      answer: string;
      usage: { inputTokens: number; outputTokens: number };
    };
    expect(result).toMatchObject({ status: 'completed', answer: 'coordinator: counted to 2' });
    // Every model call once: the coordinator's first, the child's first two were served from their journals.
    expect(asked).toEqual([
      'coordinator-model:0',
      'researcher-model:0',
      'researcher-model:1',
      'researcher-model:2',
      'coordinator-model:1',
    ]);
    // Step 1 finished before the kill and never ran again; step 2 was cut off and ran again.
    expect(readFileSync(config.sideLog, 'utf8').trim().split('\n')).toEqual(['1\t1', '1\t2', '2\t2']);
    // The coordinator's usage is its own two calls plus the child's three, exactly.
    expect(result.usage).toMatchObject({ inputTokens: 10 + 11 + 10 + 11 + 12, outputTokens: 25 });

    const store = openStore({ path: config.db });
    cleanup.push(() => store.close());
    expect((await store.get('team-run.call_r'))?.status).toBe('completed');
    const replay = await replayRun(store, 'team-run', { pipeline: reactPipeline() });
    expect(replay.identical, JSON.stringify(replay.divergence)).toBe(true);
    expect(replay.result.answer).toBe('coordinator: counted to 2');
    expect(asked).toHaveLength(5);
  }, 60_000);

  it('resumes inside a handoff target: nothing finished runs again, the target answers for the run, replay identical', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'stageloop-handoff-crash-'));
    const { server, asked } = await startTeamModel(true);
    cleanup.push(
      () => rmSync(directory, { recursive: true, force: true }),
      () => server.close(),
    );
    const config: AgentCrashConfig = {
      db: join(directory, 'runs.db'),
      runId: 'triage-run',
      action: 'start',
      serverUrl: server.url,
      sideLog: join(directory, 'side.log'),
      attempt: 1,
      handoff: true,
    };

    const first = startChild(config);
    await first.waitFor('tool 2');
    first.child.kill('SIGKILL');
    await first.exited;
    // Killed mid-handoff, the triage run has no tool entry yet: show hangs the target under the reply that asked for it.
    const killed = openStore({ path: config.db });
    const stdout = new PassThrough();
    let shown = '';
    stdout.on('data', (chunk: Buffer) => void (shown += chunk.toString()));
    await showCommand(await loadRunTree(killed, 'triage-run'), false, { stdout, stderr: new PassThrough() });
    await killed.close();
    expect(shown).toMatch(
      / {4}model · think: tool_calls .*→ transfer_to_researcher \{\}\n {4}↳ agent coordinator\/researcher · run triage-run\.call_r · running\n/,
    );
    expect(shown).toContain('      not finished:');
    const second = startChild({ ...config, action: 'resume', attempt: 2 });
    expect(await second.exited, second.errors()).toBe(0);
    const result = JSON.parse(/result (.*)/.exec(second.output())![1]!) as {
      status: string;
      answer: string;
      usage: { inputTokens: number; outputTokens: number };
    };
    expect(result).toMatchObject({ status: 'completed', answer: 'counted to 2' });
    // The coordinator's one call and the target's first two were served; it is never asked again after the handoff.
    expect(asked).toEqual(['coordinator-model:0', 'researcher-model:0', 'researcher-model:1', 'researcher-model:2']);
    expect(readFileSync(config.sideLog, 'utf8').trim().split('\n')).toEqual(['1\t1', '1\t2', '2\t2']);
    expect(result.usage).toMatchObject({ inputTokens: 10 + 10 + 11 + 12, outputTokens: 20 });

    const store = openStore({ path: config.db });
    cleanup.push(() => store.close());
    expect((await store.get('triage-run.call_r'))?.status).toBe('completed');
    const replay = await replayRun(store, 'triage-run', { pipeline: reactPipeline({ handoffs: true }) });
    expect(replay.identical, JSON.stringify(replay.divergence)).toBe(true);
    expect(replay.result.answer).toBe('counted to 2');
    expect(asked).toHaveLength(4);
  }, 60_000);
});
