// Two processes recovering one dead run at once (issue 40): a `stageloop run` killed with kill -9 after its MCP write
// (tests/durable/effects-mcp-server.ts appends "KEY\tTEXT") while its answering model call is held; then two
// `stageloop serve` (SQLite, PostgreSQL) or two `stageloop worker` (Redis) start together on its store. The claim
// fences it: exactly one says it recovered the run, the run completes once, and the write is in the file once.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendReply, startChatServer, type ChatRequestBody } from '../support/chat-server.js';
import { repositoryRoot } from '../support/mcp-servers.js';
import { runPostgresTests, startPostgres } from '../support/postgres-server.js';
import { runCli, startCli, type StartedCli } from '../support/run-cli.js';
import { waitFor } from '../server/serve-support.js';
import { runRedisTests, startRedis } from './redis-server.js';

const answer = 'The bill is paid.';

/** Calls the write once, then answers; while `holding`, the answering call is held (the run is killed there). */
async function ledgerModel() {
  const server = await startChatServer();
  let holding = true;
  let held: () => void;
  const reached = new Promise<void>((resolve) => (held = resolve));
  server.handle((request, response) => {
    const body: ChatRequestBody = request.body;
    if (!body.messages.some((message) => message.role === 'tool'))
      return sendReply(request, response, {
        toolCalls: [{ name: 'ledger__append_line', arguments: JSON.stringify({ text: 'paid 10' }) }],
      });
    if (holding) return held();
    sendReply(request, response, { content: answer });
  }, Number.MAX_SAFE_INTEGER);
  return { server, reached, release: () => (holding = false) };
}

/** Kills a run on `store` once its write is done and its answer is being asked for; two recoverers then take it. */
async function recoverTwice(store: string, recoverer: (env: Record<string, string>) => StartedCli): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-recover-at-once-'));
  const file = join(folder, 'ledger.txt');
  const config = join(folder, 'mcp.json');
  const server = {
    command: process.execPath,
    args: ['--import', 'tsx', join(repositoryRoot, 'tests/durable/effects-mcp-server.ts')],
    cwd: repositoryRoot,
    env: { EFFECTS_FILE: '${LEDGER_FILE}' },
  };
  writeFileSync(config, JSON.stringify({ mcpServers: { ledger: server } }));
  const env = { OPENAI_API_KEY: 'sk-test', LEDGER_FILE: file };
  const model = await ledgerModel();
  const recoverers: StartedCli[] = [];
  try {
    const args = ['run', '--store', store, '--base-url', model.server.url, '--model', 'test-model'];
    const run = startCli([...args, '--mcp-config', config, 'Pay the bill'], env);
    await model.reached;
    run.child.kill('SIGKILL');
    const runId = /run ([0-9a-f]{32})/.exec((await run.done).stderr)![1]!;
    model.release();

    recoverers.push(recoverer(env), recoverer(env));
    const shown = async () => {
      const listed = await runCli(['runs', '--json', '--store', store], env);
      const found = (JSON.parse(listed.stdout) as Array<{ runId: string; status: string; recoveredBy?: string }>).find(
        (each) => each.runId === runId,
      );
      return found?.status === 'completed' ? found : undefined;
    };
    const completed = await waitFor(shown, 'the recovered run', 120_000);
    expect(completed.recoveredBy).toMatch(/pid \d+ on /);
    // Stopped (SIGTERM), each says on stderr what it took.
    const ended = await Promise.all(recoverers.map((each) => (each.child.kill('SIGTERM'), each.done)));
    expect(ended.filter((each) => each.stderr.includes(`recovered run ${runId}`))).toHaveLength(1);
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
  } finally {
    for (const each of recoverers) if (each.child.exitCode === null) each.child.kill('SIGTERM');
    await Promise.all(recoverers.map((each) => each.done));
    await model.server.close();
  }
}

const serve = (store: string) => (env: Record<string, string>) =>
  startCli(['serve', '--port', '0', '--store', store], env);

describe('two processes recover one dead run at once: one takes it, it completes once, its write is done once', () => {
  it('two stageloop serve on one SQLite store', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'stageloop-recover-at-once-')), 'runs.db');
    await recoverTwice(store, serve(store));
  }, 300_000);

  it.runIf(runPostgresTests)(
    'two stageloop serve on one PostgreSQL store',
    async () => {
      const postgres = await startPostgres();
      try {
        await recoverTwice(postgres.url, serve(postgres.url));
      } finally {
        await postgres.stop();
      }
    },
    300_000,
  );

  it.runIf(runRedisTests)(
    'two stageloop worker on one Redis store',
    async () => {
      const redis = await startRedis();
      try {
        await recoverTwice(redis.url, (env) => startCli(['worker', '--redis', redis.url], env));
      } finally {
        await redis.stop();
      }
    },
    300_000,
  );
});
