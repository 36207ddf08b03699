import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli, startCli } from '../support/run-cli.js';

let home: string | undefined;
afterEach(() => home && rmSync(home, { recursive: true, force: true }));
const freshHome = () => (home = mkdtempSync(join(tmpdir(), 'stageloop-home-')));
const runIdOf = (stderr: string) => /run ([0-9a-f]{32}) \(recorded in/.exec(stderr)?.[1];

describe('recorded CLI runs', () => {
  it('records a run by default, prints its id, and runs / show / replay read it back', async () => {
    const env = { STAGELOOP_HOME: freshHome() };
    const run = await runCli(['run', 'What is 17 * 23 + 4?'], env);
    expect(run.code).toBe(0);
    const runId = runIdOf(run.stderr);
    expect(runId).toBeDefined();
    expect(run.stderr).toContain(`continue it with: ./bin/stageloop.js resume ${runId}`);
    expect(existsSync(join(home!, 'stageloop.db'))).toBe(true);

    const runs = await runCli(['runs', '--json'], env);
    expect(JSON.parse(runs.stdout)).toMatchObject([
      { runId, pipeline: 'react', status: 'completed', iterations: 2, task: 'What is 17 * 23 + 4?' },
    ]);

    const show = await runCli(['show', runId!], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/\[setup\] context \(setup, \d+ ms\): continue/);
    expect(show.stdout).toMatch(/model · think: tool_calls .*→ calculator \{"expression":"17 \* 23 \+ 4"\}/);
    expect(show.stdout).toMatch(/tools · calculator .*Result: 395/);
    expect(show.stdout).toMatch(/\[2\] think \(iteration, \d+ ms\): ends the loop \(completed\)/);
    expect(show.stdout).toContain('answer: 17 * 23 + 4 = 395');

    const replay = await runCli(['replay', runId!], env);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/^identical: react on run [0-9a-f]{32} ends completed/);

    const other = await runCli(['replay', runId!, '--pipeline', 'plan-execute-replan'], env);
    expect(other.code).toBe(1);
    // plan-execute-replan starts like react (same context), then asks the model for a plan the recording never had.
    // The other pipeline differs from its first stage on: the limits in force (its iteration cap) already.
    expect(other.stdout).toMatch(/^diverged at setup, stage limits: /);
  });

  it('--no-store records nothing; --store PATH records there', async () => {
    freshHome();
    const none = await runCli(['run', '--no-store', 'What is 2 + 2?'], { STAGELOOP_HOME: home! });
    expect(none.code).toBe(0);
    expect(runIdOf(none.stderr)).toBeUndefined();
    expect(existsSync(join(home!, 'stageloop.db'))).toBe(false);
    const file = join(home!, 'elsewhere.db');
    const there = await runCli(['run', '--store', file, 'What is 2 + 2?']);
    expect(there.code).toBe(0);
    const runs = await runCli(['runs', '--store', file, '--json']);
    expect(JSON.parse(runs.stdout)).toHaveLength(1);
  });

  it('bad input to the store commands: one line, exit 2', async () => {
    const env = { STAGELOOP_HOME: freshHome() };
    const unknown = await runCli(['show', 'nope'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'stageloop: no run with id nope in this store: list runs with "./bin/stageloop.js runs"\n',
    );
    const noId = await runCli(['resume'], env);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain('stageloop resume needs a run id');
    const run = await runCli(['run', 'What is 2 + 2?'], env);
    const finished = await runCli(['resume', runIdOf(run.stderr)!], env);
    expect(finished.code).toBe(2);
    expect(finished.stderr).toMatch(
      /^stageloop: run [0-9a-f]{32} already ended \(completed\): there is nothing to resume/,
    );
    expect(finished.stdout).toBe('');
    const both = await runCli(['run', '--store', 'x.db', '--no-store', 'hi'], env);
    expect(both.code).toBe(2);
  });
});

describe('a CLI run killed mid-run', () => {
  const loopback = useLoopbackServer();

  it('is continued by "stageloop resume" without repeating the model calls that completed', async () => {
    const env = { STAGELOOP_HOME: freshHome(), OPENAI_BASE_URL: loopback.server.url, OPENAI_MODEL: 'test-model' };
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"6*7"}' }]);
    loopback.server.hang();
    const started = startCli(['run', 'What is six times seven?'], env);
    await started.waitForStderr('calculator: Expression: 6*7');
    // The second model call arrives only after the tool's result is in the journal: kill the run during it.
    await loopback.server.received(2);
    started.child.kill('SIGKILL');
    const killed = await started.done;
    expect(killed.signal).toBe('SIGKILL');
    const runId = runIdOf(killed.stderr)!;
    const listed = await runCli(['runs', '--json'], env);
    expect(JSON.parse(listed.stdout)[0]).toMatchObject({ runId, status: 'running', held: false });
    // A recording cut off mid-run is not replayed: it is resumed first.
    const early = await runCli(['replay', runId], env);
    expect(early.code).toBe(2);
    expect(early.stderr.trim()).toBe(
      `stageloop: run ${runId} has not finished (it is running, or its process died): continue it with "./bin/stageloop.js resume ${runId}", then replay it`,
    );

    const before = loopback.server.requests.length;
    loopback.server.replyWith({ content: 'The answer is 42.' });
    const resumed = await runCli(['resume', runId], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout.trim()).toBe('The answer is 42.');
    // Only the call that was in flight at the kill was made again: the first reply came from the journal.
    expect(loopback.server.requests.length - before).toBe(1);
    expect(loopback.server.requests.at(-1)!.body.messages.some((message) => message.role === 'tool')).toBe(true);
    const replay = await runCli(['replay', runId], env);
    expect(replay.stdout).toMatch(/^identical/);
  });
});
