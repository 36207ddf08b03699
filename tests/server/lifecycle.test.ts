// The API's whole lifecycle against a real server on a loopback port: start, watch, inspect, cancel, a failing run.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../app/cli/main.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { jsonPost, readEvents, useServes, loopbackModelEnv, waitForStatus } from './serve-support.js';

const loopback = useLoopbackServer();
const serves = useServes();
const modelEnv = () => loopbackModelEnv(loopback.server.url);

describe('stageloop serve: runs over HTTP', () => {
  it('starts a run (201 with its id), lists it, and shows its result and timeline', async () => {
    loopback.server.replyWith({ content: 'The answer is 4.', usage: { input: 11, output: 5 } });
    const serve = await serves.start(modelEnv());
    const started = await serve.call('/v1/runs', jsonPost({ task: 'what is 2 + 2?' }));
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    expect(started.headers.get('location')).toBe(`/v1/runs/${runId}`);
    const view = (await waitForStatus(serve, runId, ['completed'])) as unknown as {
      run: { outcome: { answer: string; tokens: number } };
      timeline: Array<{ kind: string; stage: string | null }>;
    };
    expect(view.run.outcome.answer).toBe('The answer is 4.');
    expect(view.run.outcome.tokens).toBe(16);
    expect(view.timeline.some((item) => item.kind === 'model')).toBe(true);
    expect(view.timeline.filter((item) => item.kind === 'stage').map((item) => item.stage)).toContain('think');
    const list = (await (await serve.call('/v1/runs')).json()) as {
      runs: Array<{ runId: string; task: string; status: string }>;
    };
    expect(list.runs).toContainEqual(expect.objectContaining({ runId, task: 'what is 2 + 2?', status: 'completed' }));
  });

  it('is an ordinary recorded run: `stageloop show` reads it from the same store', async () => {
    loopback.server.replyWith({ content: 'Paris.' });
    const serve = await serves.start(modelEnv());
    const { runId } = (await (await serve.call('/v1/runs', jsonPost({ task: 'capital of France?' }))).json()) as {
      runId: string;
    };
    await waitForStatus(serve, runId, ['completed']);
    let stdout = '';
    const code = await main(['show', runId, '--json', '--store', serve.storeFile], {
      stdout: { write: (text: string) => ((stdout += text), true) } as NodeJS.WritableStream,
      stderr: process.stderr,
      env: {},
    });
    expect(code).toBe(0);
    const shown = JSON.parse(stdout) as { runId: string; status: string; options: { recipe: { pipeline: string } } };
    expect(shown).toMatchObject({
      runId,
      status: 'completed',
      options: { recipe: { pipeline: 'react', model: { offline: false } } },
    });
  });

  it("with Accept: text/event-stream the start answers with the run's events, ids 1, 2, 3..., then an end event", async () => {
    loopback.server.replyWith({ content: 'Done.' });
    const serve = await serves.start(modelEnv());
    const response = await serve.call(
      '/v1/runs',
      jsonPost({ task: 'say done', pipeline: 'react' }, { accept: 'text/event-stream' }),
    );
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readEvents(response);
    const numbered = events.filter((event) => event.id !== undefined);
    expect(numbered.map((event) => Number(event.id))).toEqual(numbered.map((_, index) => index + 1));
    expect(numbered[0]!.event).toBe('run_started');
    expect(numbered.at(-1)!.event).toBe('run_finished');
    expect(events.at(-1)!.event).toBe('end');
    expect(events.some((event) => event.event === 'answer' && JSON.parse(event.data).data.text === 'Done.')).toBe(true);
  });

  it('cancels a running run (202), which ends cancelled; cancelling it again is a 409', async () => {
    loopback.server.hang();
    const serve = await serves.start(modelEnv());
    const { runId } = (await (await serve.call('/v1/runs', jsonPost({ task: 'wait forever' }))).json()) as {
      runId: string;
    };
    const cancelled = await serve.call(`/v1/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(202);
    await waitForStatus(serve, runId, ['cancelled']);
    const again = await serve.call(`/v1/runs/${runId}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('conflict');
  });

  it('survives a run that fails: the run is recorded failed and the next one completes', async () => {
    // The model refuses the first call; nothing more is queued until the run has failed, so its later calls fail too.
    loopback.server.fail(400, { message: 'bad request from the model server' });
    const serve = await serves.start(modelEnv());
    const first = (await (await serve.call('/v1/runs', jsonPost({ task: 'first' }))).json()) as { runId: string };
    await waitForStatus(serve, first.runId, ['failed']);
    loopback.server.replyWith({ content: 'Fine now.' });
    const health = await serve.call('/v1/health');
    expect(await health.json()).toEqual({ ok: true, accepting: true });
    const second = (await (await serve.call('/v1/runs', jsonPost({ task: 'second' }))).json()) as { runId: string };
    const secondView = await waitForStatus(serve, second.runId, ['completed', 'failed', 'stopped']);
    expect(
      secondView.run,
      JSON.stringify((secondView.run as { outcome?: unknown }).outcome).slice(0, 600),
    ).toMatchObject({ status: 'completed' });
  });

  it('lists the built-in pipelines with their stages', async () => {
    const serve = await serves.start({});
    const body = (await (await serve.call('/v1/pipelines')).json()) as {
      pipelines: Array<{ name: string; iteration: string[] }>;
      default: string;
    };
    expect(body.default).toBe('react');
    expect(body.pipelines.map((pipeline) => pipeline.name)).toEqual(expect.arrayContaining(['react']));
    expect(body.pipelines.find((pipeline) => pipeline.name === 'react')!.iteration).toContain('think');
  });

  it('runs with the offline model when no model server is configured, as the CLI does', async () => {
    const serve = await serves.start({});
    const { runId } = (await (
      await serve.call('/v1/runs', jsonPost({ task: 'what is 6 * 7?', options: { maxIterations: 4 } }))
    ).json()) as { runId: string };
    const view = (await waitForStatus(serve, runId, ['completed'])) as unknown as {
      run: { outcome: { answer: string } };
    };
    expect(view.run.outcome.answer).toContain('42');
  });
});

describe('decisions over HTTP', () => {
  it('an interrupted run (a CLI run with --approve-tools) is approved over HTTP and completes', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"2 + 2"}' }]);
    loopback.server.replyWith({ content: 'It is 4.' });
    const serve = await serves.start(modelEnv());
    let stdout = '';
    const out = { write: (text: string) => ((stdout += text), true) } as NodeJS.WritableStream;
    const code = await main(
      ['run', '--json', '--approve-tools', 'calculator', '--store', serve.storeFile, 'What is 2 + 2?'],
      { stdout: out, stderr: { write: () => true } as unknown as NodeJS.WritableStream, env: modelEnv() },
    );
    expect(code).toBe(4);
    const paused = JSON.parse(stdout) as { runId: string; pending: Array<{ id: string }> };
    const decided = await serve.call(
      `/v1/runs/${paused.runId}/decisions`,
      jsonPost({ decisions: [{ callId: paused.pending[0]!.id, approve: true }] }),
    );
    expect(decided.status).toBe(202);
    const view = (await waitForStatus(serve, paused.runId, ['completed'])) as unknown as {
      run: { outcome: { answer: string } };
    };
    expect(view.run.outcome.answer).toBe('It is 4.');
  });

  it("a coordinator paused by its agents' approvals takes their prefixed call ids and completes", async () => {
    const serve = await serves.start({});
    let stdout = '';
    const out = { write: (text: string) => ((stdout += text), true) } as NodeJS.WritableStream;
    const config = fileURLToPath(new URL('../../examples/agents/stageloop.config.json', import.meta.url));
    const argv = [
      'run',
      '--agent',
      'coordinator',
      '--offline',
      '--approve-tools',
      'calculator',
      '--mcp-config',
      config,
      '--json',
      '--store',
      serve.storeFile,
      'Compute 12 * 7; compute 100 - 58',
    ];
    expect(
      await main(argv, { stdout: out, stderr: { write: () => true } as unknown as NodeJS.WritableStream, env: {} }),
    ).toBe(4);
    const paused = JSON.parse(stdout) as { runId: string; pending: Array<{ id: string }> };
    const [multiply, subtract] = paused.pending.map((item) => item.id);
    const decided = await serve.call(
      `/v1/runs/${paused.runId}/decisions`,
      jsonPost({
        decisions: [
          { callId: multiply!, approve: true },
          { callId: subtract!, approve: false, reason: 'not now' },
        ],
      }),
    );
    expect(decided.status).toBe(202);
    const view = (await waitForStatus(serve, paused.runId, ['completed'])) as unknown as {
      run: { outcome: { answer: string } };
    };
    expect(view.run.outcome.answer).toMatch(/^12 \* 7 = 84; .*not now/);
  });
});
