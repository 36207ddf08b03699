// Error codes seen from the outside: the CLI's exit code and the server's HTTP status come from one table each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../app/cli/main.js';
import { exitCodeOf, httpStatusOf } from '../../src/common/stageloop-error.js';
import { runCli } from '../support/run-cli.js';
import { jsonPost, startTestServe, waitFor, waitForStatus, type TestServe } from '../server/serve-support.js';

async function problemOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const text = await response.text();
  expect(text).not.toMatch(/\n\s+at /);
  return { status: response.status, ...(JSON.parse(text) as { error: { code: string; message: string } }).error };
}

describe('the CLI maps error codes to exit codes', () => {
  it.each([
    ['usage', ['frobnicate'], /unknown command "frobnicate"/],
    ['not_found', ['show', 'no-such-run'], /no run with id no-such-run/],
    [
      'config',
      ['run', '--max-cost', '1', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'my-local-thing', 'x'],
      /--max-cost needs the price of model "my-local-thing"/,
    ],
  ] as const)('%s: exit %#', async (code, args, message) => {
    const run = await runCli([...args]);
    expect(run.code).toBe(exitCodeOf[code]);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('finished and invalid_decision: exit 2, the unknown call named', async () => {
    const done = await runCli(['run', '--json', 'What is 1 + 1?']);
    const runId = (JSON.parse(done.stdout) as { runId: string }).runId;
    const resumed = await runCli(['resume', runId]);
    expect(resumed.code).toBe(exitCodeOf.finished);
    expect(resumed.stderr).toMatch(/already ended \(completed\)/);
    const paused = await runCli(['run', '--approve-all-tools', 'What is 2 + 2?']);
    expect(paused.code).toBe(4);
    const pausedId = /run ([0-9a-f]{32}) is waiting/.exec(paused.stderr)![1]!;
    const wrong = await runCli(['approve', pausedId, 'no-such-call']);
    expect(wrong.code).toBe(exitCodeOf.invalid_decision);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/has no pending call no-such-call/);
  });
});

describe('the server maps error codes to HTTP statuses', () => {
  let serve: TestServe;
  beforeAll(async () => {
    serve = await startTestServe({});
  });
  afterAll(() => serve.close());

  it('invalid_decision is a 409 naming the call; a good decision then completes the run', async () => {
    const started = await serve.call('/v1/runs', jsonPost({ task: 'What is 12 * 7?', approveTools: ['calculator'] }));
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    await waitForStatus(serve, runId, ['interrupted']);
    const wrong = await problemOf(
      await serve.call(
        `/v1/runs/${runId}/decisions`,
        jsonPost({ decisions: [{ callId: 'no-such-call', approve: true }] }),
      ),
    );
    expect(wrong).toMatchObject({ status: httpStatusOf.invalid_decision, code: 'invalid_decision' });
    expect(wrong.status).toBe(409);
    expect(wrong.message).toMatch(/has no pending call no-such-call/);
    const view = (await (await serve.call(`/v1/runs/${runId}`)).json()) as {
      pending?: Array<{ id: string }>;
      run: { outcome?: { result: { pending: Array<{ id: string }> } } };
    };
    const callId = (view.pending ?? view.run.outcome?.result.pending ?? [])[0]?.id ?? 'offline_call_2';
    const accepted = await serve.call(
      `/v1/runs/${runId}/decisions`,
      jsonPost({ decisions: [{ callId, approve: true }] }),
    );
    expect(accepted.status).toBe(202);
    await waitForStatus(serve, runId, ['completed']);
  });

  it('usage (a session name that is a path) is a 400; not_found a 404; a run not waiting a 409', async () => {
    const path = await problemOf(await serve.call('/v1/runs', jsonPost({ task: 'x', session: '../x' })));
    expect(path).toMatchObject({ status: 400 });
    expect(path.message).toMatch(/^session: .*not a usable session name/);
    expect((await problemOf(await serve.call('/v1/runs/no-such-run'))).status).toBe(httpStatusOf.not_found);
    const { runId } = (await (await serve.call('/v1/runs', jsonPost({ task: 'What is 1 + 1?' }))).json()) as {
      runId: string;
    };
    await waitForStatus(serve, runId, ['completed']);
    const notWaiting = await problemOf(
      await serve.call(`/v1/runs/${runId}/decisions`, jsonPost({ decisions: [{ callId: 'c', approve: true }] })),
    );
    expect(notWaiting.status).toBe(409);
  });

  it('a session and user given over HTTP are honoured and recorded in the recipe', async () => {
    const { runId } = (await (
      await serve.call('/v1/runs', jsonPost({ task: 'What is 5 * 5?', session: 'web-1', user: 'ada' }))
    ).json()) as { runId: string };
    await waitForStatus(serve, runId, ['completed']);
    let stdout = '';
    const sink = { write: (text: string) => ((stdout += text), true) } as NodeJS.WritableStream;
    expect(
      await main(['show', runId, '--json', '--store', serve.storeFile], {
        stdout: sink,
        stderr: process.stderr,
        env: {},
      }),
    ).toBe(0);
    const shown = JSON.parse(stdout) as {
      input: Record<string, unknown>;
      options: { recipe: Record<string, unknown> };
    };
    expect(shown.input).toMatchObject({ session: 'web-1', user: 'ada' });
    expect(shown.options.recipe).toMatchObject({ session: { name: 'web-1', user: 'ada' } });
    await waitFor(async () => (stdout.includes('history') ? true : undefined), 'the session stages', 1000);
  });
});
