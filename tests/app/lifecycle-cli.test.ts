// The run recipe through the real CLI, offline: a paused session run approved in a new process saves its turn; an
// output-schema run approved later still has its output; replay is identical; a recorded run resumes without --force.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const home = mkdtempSync(join(tmpdir(), 'stageloop-lifecycle-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const env = { STAGELOOP_HOME: home };
const runIdOf = (stderr: string) => /run ([0-9a-f]{32}) is waiting/.exec(stderr)?.[1];

describe('one recipe for every lifecycle verb', () => {
  it('session + approvals: pause (exit 4), approve in a new process, and the next turn builds on the saved one', async () => {
    const paused = await runCli(['run', '--session', 's1', '--approve-all-tools', 'What is 12 * 7?'], env);
    expect(paused.code).toBe(4);
    const runId = runIdOf(paused.stderr)!;
    expect(runId).toBeDefined();
    const approved = await runCli(['approve', runId, '--json'], env);
    expect(approved.stderr).not.toMatch(/another shape|--force/);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: 'completed' });
    const next = await runCli(['run', '-q', '--session', 's1', 'Add 10 to that'], env);
    expect(next.code).toBe(0);
    expect(next.stdout).toMatch(/\b94\b/);
    const replayed = await runCli(['replay', runId], env);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toMatch(/^identical/);
    expect(replayed.stdout).not.toMatch(/\bdiverg/i);
  });

  it('session + approvals with another turn of the session in between: approve, then replay is identical', async () => {
    const paused = await runCli(['run', '--session', 's3', '--approve-all-tools', 'What is 12 * 7?'], env);
    expect(paused.code).toBe(4);
    const runId = runIdOf(paused.stderr)!;
    // This turn is saved first, so the paused run's turn is the session's second, though it started first.
    const between = await runCli(['run', '-q', '--session', 's3', 'What is 2 + 3?'], env);
    expect(between.code).toBe(0);
    const approved = await runCli(['approve', runId, '-q'], env);
    expect(approved.code).toBe(0);
    const replayed = await runCli(['replay', runId], env);
    expect(replayed.stdout).toMatch(/^identical/);
    expect(replayed.code).toBe(0);
  });

  it('output schema + approvals: approve --json in a new process has the typed output', async () => {
    const schema = join(home, 'result.schema.json');
    writeFileSync(
      schema,
      JSON.stringify({ type: 'object', properties: { result: { type: 'number' } }, required: ['result'] }),
    );
    const paused = await runCli(['run', '--output-schema', schema, '--approve-all-tools', 'What is 3 * 5?'], env);
    expect(paused.code).toBe(4);
    const approved = await runCli(['approve', runIdOf(paused.stderr)!, '--json'], env);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ status: 'completed', output: { result: 15 } });
  });

  it('resume of a paused run needs no --force (its pipeline is rebuilt from the recipe); reject works the same way', async () => {
    const paused = await runCli(
      [
        'run',
        '--session',
        's2',
        '--approve-tools',
        'calculator',
        '--max-tokens',
        '50000',
        '--loop-limit',
        '3',
        'What is 2 * 21?',
      ],
      env,
    );
    expect(paused.code).toBe(4);
    const runId = runIdOf(paused.stderr)!;
    const resumed = await runCli(['resume', runId, '--json'], env);
    expect(resumed.stderr).not.toMatch(/another shape|--force/);
    // No terminal: it pauses again, rebuilt with the same stages.
    expect(resumed.code).toBe(4);
    const callId = /^\s+(\S+)\s+calculator/m.exec(resumed.stderr)![1]!;
    const rejected = await runCli(['reject', runId, callId, '--message', 'no tools today', '--json'], env);
    expect(rejected.code).toBe(0);
    expect(JSON.parse(rejected.stdout)).toMatchObject({ status: 'completed' });
    // The rejected run's turn is saved to its session, as an approved one's is: the next turn loads it.
    const next = await runCli(['run', '--session', 's2', 'What is 1 + 1?'], env);
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(/history loaded: session: "s2", turns: 1\b/);
  });

  it('approve applies the recorded tracing, as resume does: a --trace console run prints its waterfall when approved', async () => {
    const paused = await runCli(['run', '--trace', 'console', '--approve-all-tools', 'What is 4 * 4?'], env);
    expect(paused.code).toBe(4);
    const approved = await runCli(['approve', runIdOf(paused.stderr)!], env);
    expect(approved.code).toBe(0);
    expect(approved.stderr).toMatch(/invoke_agent react/);
    expect(approved.stderr).toMatch(/execute_tool calculator/);
  });

  it('an offline object schema of numbers is filled with the result: exit 0, completed', async () => {
    const schema = join(home, 'plain.schema.json');
    writeFileSync(
      schema,
      JSON.stringify({ type: 'object', properties: { result: { type: 'number' } }, required: ['result'] }),
    );
    const run = await runCli(['run', '-q', '--output-schema', schema, 'What is 6 * 7?'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ result: 42 });
    writeFileSync(schema, JSON.stringify({ type: 'number' }));
    const number = await runCli(['run', '--json', '--output-schema', schema, 'What is 6 * 7?'], env);
    expect(JSON.parse(number.stdout)).toMatchObject({ status: 'completed', output: 42 });
  });
});
