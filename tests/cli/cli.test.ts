// The stageloop command as a user meets it: real processes, the offline model, and a loopback model loopback.server.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli, startCli } from '../support/run-cli.js';

const noStackTrace = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);

describe('stageloop basics', () => {
  it('prints help and version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('stageloop run');
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const runHelp = await runCli(['run', '--help']);
    expect(runHelp.stdout).toContain('--max-iterations N');
  });

  it.each([
    [['run', '--frobnicate', 'x'], /--frobnicate is not an option of this command.*\.\/bin\/stageloop\.js run --help/],
    [['run'], /needs a task/],
    [['run', '--max-iterations', 'zero', 'x'], /--max-iterations must be a positive whole number, got "zero"/],
    [['run', '--pipeline', 'nope', 'x'], /unknown pipeline "nope": choose one of react, plan-execute-replan/],
    [['run', '--trace', 'jaeger', 'x'], /--trace must be "otlp" or "console"/],
    [['run', '--guard', 'injection=shout', 'x'], /flag, redact or block/],
    [['dance'], /unknown command "dance"/],
    [['run', '--max-cost', '-1', 'x'], /--max-cost got a value starting with "-": write it as --max-cost=VALUE/],
    [['run', '--max-cost=-1', 'x'], /--max-cost must be a positive number of US dollars, got "-1"/],
  ])('usage error %j exits 2 with one clear line', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    noStackTrace(result.stderr);
  });

  it('a broken model configuration exits 2 with one line', async () => {
    const temperature = await runCli(['run', 'hi'], { OPENAI_API_KEY: 'sk-secret-123', AGENT_TEMPERATURE: 'abc' });
    expect(temperature.code).toBe(2);
    expect(temperature.stderr.trim()).toBe('stageloop: AGENT_TEMPERATURE must be a number from 0 to 2, got "abc"');
    const url = await runCli(['run', '--base-url', 'not a url', 'hi']);
    expect(url.code).toBe(2);
    expect(url.stderr).toMatch(/baseUrl is not a URL/);
    const model = await runCli(['run', 'hi'], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/OPENAI_MODEL is required/);
  });
});

describe('stageloop run with the offline model', () => {
  it('answers an arithmetic task with ReAct and says it is offline', async () => {
    const result = await runCli(['run', 'What is 17 * 23 + 4?']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toContain('395');
    expect(result.stderr).toMatch(/offline model/);
    expect(result.stderr).toMatch(/→ calculator/);
    expect(result.stderr).toMatch(/status: completed/);
  });

  it('shows a three-step plan and answers 77 with Plan-Execute-Replan', async () => {
    const result = await runCli([
      'run',
      '--pipeline',
      'plan-execute-replan',
      'Compute 12*12, then add 10, then divide by 2',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('77');
    expect(result.stderr).toMatch(/1\. .*12\s*\*\s*12/);
    expect(result.stderr).toMatch(/3\. .*divide by 2/i);
  });

  it('--json prints exactly one JSON object on stdout', async () => {
    const result = await runCli([
      'run',
      '--json',
      '--pipeline',
      'plan-execute-replan',
      'Compute 12*12, then add 10, then divide by 2',
    ]);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(output).sort()).toEqual(
      [
        'answer',
        'iterations',
        'limits',
        'partial',
        'pipeline',
        'plan',
        'runId',
        'stages',
        'status',
        'stopReason',
        'usage',
        'warnings',
      ].sort(),
    );
    expect(output).toMatchObject({
      pipeline: 'plan-execute-replan',
      status: 'completed',
      partial: false,
      stopReason: { kind: 'completed' },
    });
    const plan = output.plan as { goal: string; steps: Array<{ id: string; dependsOn: string[]; status: string }> };
    expect(plan.goal).toBe('Compute 12*12, then add 10, then divide by 2');
    expect(plan.steps.map((step) => [step.id, step.dependsOn, step.status])).toEqual([
      ['s1', [], 'completed'],
      ['s2', ['s1'], 'completed'],
      ['s3', ['s2'], 'completed'],
    ]);
    expect(String(output.answer)).toContain('77');
    expect(result.stderr).toBe('');
  });

  it('plan-execute-replan shows independent plan steps running together, and --max-parallel-steps 1 runs them in turn', async () => {
    const task = 'Compute 2*3, 4*5 and 6*7, then add the three results';
    const together = await runCli(['run', '--no-store', '--pipeline', 'plan-execute-replan', task]);
    expect(together.code).toBe(0);
    expect(together.stderr).toContain('running together: s1, s2, s3');
    expect(together.stderr).toContain('4. s4 Add the three results (after s1, s2, s3)');
    expect(together.stderr).toMatch(/\[s2\] → calculator/);
    expect(together.stdout).toContain('The answer is 68.');
    const store = join(mkdtempSync(join(tmpdir(), 'stageloop-graph-')), 'runs.db');
    const recorded = await runCli(['run', '--store', store, '--json', '--pipeline', 'plan-execute-replan', task]);
    const shown = await runCli([
      'show',
      String((JSON.parse(recorded.stdout) as { runId: string }).runId),
      '--store',
      store,
    ]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/wave 1 \(side by side\):\n    \[x\] s1 · \d+ ms/);
    expect(shown.stdout).toMatch(/wave 2:\n    \[x\] s4 ← s1, s2, s3/);
    expect(shown.stdout).toMatch(/\[s3\] tools · calculator/);
    const inTurn = await runCli([
      'run',
      '--no-store',
      '--json',
      '--max-parallel-steps',
      '1',
      '--pipeline',
      'plan-execute-replan',
      task,
    ]);
    expect(JSON.parse(inTurn.stdout)).toMatchObject({
      status: 'completed',
      answer: expect.stringContaining('68'),
      iterations: 8,
    });
    const wrong = await runCli(['run', '--max-parallel-steps', 'two', 'x']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--max-parallel-steps must be a whole number');
  });

  it('--quiet prints only the answer', async () => {
    const result = await runCli(['run', '--quiet', 'What is 2 + 2?']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/4/);
    expect(result.stderr).toBe('');
  });

  it('lists the pipelines with their zones, and the guards when flags ask for them', async () => {
    const plain = await runCli(['pipelines', '--json']);
    const listing = JSON.parse(plain.stdout) as Array<{
      name: string;
      setup: string[];
      iteration: string[];
      finalize: string[];
    }>;
    expect(listing.find((entry) => entry.name === 'react')).toMatchObject({
      setup: ['limits', 'budget-start', 'context'],
      iteration: ['budget', 'prune', 'think', 'loop-guard', 'act', 'loop-guard-history', 'observe', 'evaluate'],
      finalize: ['summarize'],
    });
    expect(listing.find((entry) => entry.name === 'plan-execute-replan')).toMatchObject({
      setup: ['limits', 'budget-start', 'context', 'plan'],
    });
    const guarded = await runCli(['pipelines', '--max-tokens', '1000', '--guard', 'injection=block']);
    expect(guarded.code).toBe(0);
    expect(guarded.stdout).toMatch(/budget/);
    expect(guarded.stdout).toMatch(/injection/);
  });
});

describe('stageloop run against an OpenAI-compatible server', () => {
  const loopback = useLoopbackServer();
  const env = () => ({ OPENAI_BASE_URL: loopback.server.url, OPENAI_MODEL: 'test-model' });

  it('runs ReAct with a tool call and prints the answer', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"6*7"}' }]);
    loopback.server.replyWith({ content: 'The answer is 42.' });
    const result = await runCli(['run', 'What is six times seven?'], env());
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('The answer is 42.');
    expect(result.stderr).toMatch(/using model test-model at 127\.0\.0\.1/);
    const toolMessage = loopback.server.requests[1]!.body.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatch(/Result: 42/);
    loopback.server.assertConsumed();
  });

  it('an unreachable server fails with one clear line and exit 1', async () => {
    const result = await runCli(['run', 'hi'], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'm' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/stageloop: cannot reach http:\/\/127\.0\.0\.1:9\/v1: connection refused/);
    noStackTrace(result.stderr);
  });

  it('the iteration cap stops the run (exit 3) with a partial answer', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"1+1"}' }], { times: 2 });
    loopback.server.replyWith({ content: 'Best effort: 1+1 is 2, but I did not finish.' });
    const result = await runCli(['run', '--json', '--max-iterations', '2', 'Keep adding'], env());
    expect(result.code).toBe(3);
    const output = JSON.parse(result.stdout) as {
      status: string;
      partial: boolean;
      answer: string;
      stopReason: { kind: string };
    };
    expect(output.status).toBe('stopped');
    expect(output.partial).toBe(true);
    expect(output.answer).toContain('Best effort');
  });

  it('Ctrl-C during a model call cancels the run, runs finalize and exits 130', async () => {
    loopback.server.hang();
    const cli = startCli(['run', 'Take your time'], env());
    await cli.waitForStderr(/\[1\] think/);
    // Interrupted while the model call is open (the server has it and never answers).
    await loopback.server.received(1);
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/cancelling/);
    expect(result.stderr).toMatch(/status: cancelled/);
    expect(result.stdout.trim().length).toBeGreaterThan(0);
  });
});
