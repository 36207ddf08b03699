// The CLI on a PostgreSQL store, as a user meets it: real `stageloop` processes with --store postgres://... or
// STAGELOOP_STORE, against a real server the test starts; the URL's password never printed nor recorded.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnvironment, cliPath, runCli, servingUrl, startCli } from '../support/run-cli.js';
import { runPostgresTests, startPostgres, type PostgresInstance } from '../support/postgres-server.js';

let server: PostgresInstance | undefined;
let url = '';
const password = 'pw-never-shown';

describe.runIf(runPostgresTests)('the CLI on a PostgreSQL store', () => {
  beforeAll(async () => {
    server = await startPostgres();
    // Trust authentication ignores the password: it is there to be kept out of every output.
    url = `postgres://postgres:${password}@127.0.0.1:${server.port}/postgres`;
  }, 120_000);
  afterAll(async () => server?.stop(), 60_000);

  it('run, runs, show, replay and resume take --store URL; runs --json keeps runId and task', async () => {
    const run = await runCli(['run', '--store', url, 'What is 17 * 23?']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('391');
    expect(run.stderr).toContain(`recorded in postgres://postgres:***@127.0.0.1:${server!.port}/postgres`);
    const listed = await runCli(['runs', '--json', `--store=${url}`]);
    const [latest] = JSON.parse(listed.stdout) as Array<{ runId: string; task: string; status: string }>;
    expect(latest).toMatchObject({ task: 'What is 17 * 23?', status: 'completed' });
    const show = await runCli(['show', latest!.runId, '--store', url]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/\[1\] think \(iteration, \d+ ms\)/);
    expect(show.stdout).toContain('calculator {"expression":"17 * 23"}');
    const replay = await runCli(['replay', latest!.runId], { STAGELOOP_STORE: url });
    expect(replay.stdout).toMatch(/^identical: react on run /);
    const resume = await runCli(['resume', latest!.runId], { STAGELOOP_STORE: url });
    expect([resume.code, resume.stderr.trim()]).toEqual([
      2,
      `stageloop: run ${latest!.runId} already ended (completed): there is nothing to resume: see it with "./bin/stageloop.js show ${latest!.runId}"`,
    ]);
    for (const result of [run, listed, show, replay, resume])
      expect(result.stdout + result.stderr).not.toContain(password);
  });

  it('approve continues an interrupted run, sessions and facts live in the same database (STAGELOOP_STORE)', async () => {
    const env = { STAGELOOP_STORE: url };
    const paused = await runCli(['run', '--approve-tools', 'calculator', 'What is 2+3?'], env);
    expect(paused.code).toBe(4);
    const runId = /run ([0-9a-f]{32}) is waiting for approval/.exec(paused.stderr)?.[1];
    expect(runId).toBeDefined();
    const approved = await runCli(['approve', runId!, '-q'], env);
    expect([approved.code, approved.stdout.trim()]).toEqual([0, '2+3 = 5']);
    expect((await runCli(['run', '-q', '--session', 's1', 'What is 12 * 12?'], env)).stdout.trim()).toBe(
      '12 * 12 = 144',
    );
    expect((await runCli(['run', '-q', '--session', 's1', 'Add 10 to that'], env)).stdout.trim()).toBe(
      '144 + 10 = 154',
    );
    await runCli(['facts', 'set', 'unit', 'cm', '--session', 's1', '--store', url]);
    expect((await runCli(['facts', '--session', 's1', '--json'], env)).stdout).toContain('"unit"');
    const client = new pg.Client({ connectionString: server!.url });
    await client.connect();
    const turns = await client.query("SELECT count(*)::int AS count FROM stageloop.session_turns WHERE session = 's1'");
    const leaked = await client.query(
      'SELECT count(*)::int AS count FROM stageloop.runs WHERE input LIKE $1 OR options LIKE $1',
      [`%${password}%`],
    );
    await client.end();
    expect([turns.rows[0]!.count, leaked.rows[0]!.count]).toEqual([2, 0]);
  });

  it('serve reads the runs of the PostgreSQL store', async () => {
    const started = startCli(['serve', '--port', '0', '--store', url]);
    const base = await servingUrl(started);
    const response = await fetch(`${base}/v1/runs`);
    const body = (await response.json()) as { runs: Array<{ task: string }> };
    expect(body.runs.map((run) => run.task)).toContain('What is 17 * 23?');
    started.child.kill('SIGTERM');
    const done = await started.done;
    expect(done.stdout + done.stderr).toContain('runs recorded in postgres://postgres:***@');
    expect(done.stdout + done.stderr).not.toContain(password);
  });

  it('a URL of an unknown scheme is one line, exit 2, and no file is made', async () => {
    const result = await runCli(['runs', '--store', 'mysql://root:hunter2@db/runs']);
    expect([result.code, result.stderr.trim()]).toEqual([
      2,
      'stageloop: store "mysql://root:***@db/runs": stageloop does not know mysql:// stores; use a file path (./runs.db), postgres://USER@HOST:PORT/DATABASE or redis://HOST:PORT',
    ]);
  });

  it('without the optional "pg" package a postgres:// store is one line naming the package, and a SQLite store still works', () => {
    const withoutPg = fileURLToPath(new URL('../support/without-pg.cjs', import.meta.url));
    const cli = (args: string[]) =>
      spawnSync(process.execPath, ['--require', withoutPg, cliPath, ...args], {
        env: cleanEnvironment(),
        encoding: 'utf8',
      });
    const missing = cli(['runs', '--store', url]);
    expect([missing.status, missing.stderr.trim()]).toEqual([
      2,
      'stageloop: a postgres:// store needs the optional package pg, not installed: run "npm install pg@8" beside stageloop',
    ]);
    expect(cli(['runs']).status).toBe(0);
  });

  it('runs prune counts with --dry-run, deletes ended runs older than N days, and says where it is not kept', async () => {
    const before = JSON.parse(
      (await runCli(['runs', '--json', '--limit', '1000', '--store', url])).stdout,
    ) as unknown[];
    const counted = await runCli(['runs', 'prune', '--older-than', '0', '--checkpoints', '--dry-run', '--store', url]);
    expect(counted.stdout).toMatch(/^would delete \d+ ended runs? and \d+ earlier checkpoints? of ended runs\n$/);
    expect(JSON.parse((await runCli(['runs', '--json', '--limit', '1000', '--store', url])).stdout)).toHaveLength(
      before.length,
    );
    const pruned = await runCli(['runs', 'prune', '--older-than', '0', '--store', url]);
    expect([pruned.code, pruned.stdout]).toEqual([
      0,
      counted.stdout.replace('would delete', 'deleted').replace(/and \d+ earlier/, 'and 0 earlier'),
    ]);
    const sqlite = await runCli(['runs', 'prune', '--checkpoints']);
    expect([sqlite.code, sqlite.stderr.trim()]).toEqual([
      2,
      'stageloop: this store keeps no retention knobs: stageloop runs prune works on PostgreSQL stores (--store postgres://...)',
    ]);
  });
});
