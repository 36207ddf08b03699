// A run paused for approval and approved in a new process makes two traces: the second one's root span links to
// the first one's root (kept in the journal), so a trace viewer walks from the resume to where the run began.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { runCli } from '../support/run-cli.js';

const loopback = useLoopbackServer();
let folder: string;
let receiver: OtlpReceiver;
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'stageloop-resume-link-'));
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
  rmSync(folder, { recursive: true, force: true });
});

const store = () => ['--store', join(folder, 'runs.db')];
const roots = (spans: readonly ReceivedSpan[]) => spans.filter((span) => span.parentSpanId === undefined);

async function tracedPausedRun(): Promise<{ runId: string; first: ReceivedSpan }> {
  loopback.server
    .replyWithToolCalls([{ id: 'call_1', name: 'calculator', arguments: '{"expression":"2 + 3"}' }])
    .replyWith({ content: 'it is 5' });
  const paused = await runCli(
    [
      'run',
      '--base-url',
      loopback.server.url,
      '--model',
      'test-model',
      ...store(),
      '--approve-tools',
      'calculator',
      '--trace',
      'otlp',
      '--json',
      'add 2 and 3',
    ],
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
  );
  expect(paused.code).toBe(4);
  const [first, ...others] = roots(receiver.spans);
  expect(others).toEqual([]);
  expect(first!.attributes['stageloop.status']).toBe('interrupted');
  return { runId: (JSON.parse(paused.stdout) as { runId: string }).runId, first: first! };
}

describe('resumes link to the run’s first trace', { timeout: 90_000 }, () => {
  it('approve in a new process (tracing as recorded): the new root span links to the first trace’s root span', async () => {
    const { runId, first } = await tracedPausedRun();
    const approved = await runCli(['approve', runId, ...store(), '--quiet'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(approved).toMatchObject({ code: 0, stdout: 'it is 5\n' });
    const second = roots(receiver.spans).find((root) => root.traceId !== first.traceId);
    expect(second?.attributes['stageloop.status']).toBe('completed');
    expect(second!.links).toEqual([{ traceId: first.traceId, spanId: first.spanId, attributes: {} }]);
    // Kept once, by the first part: the resume wrote no second one.
    const opened = sqliteStore(join(folder, 'runs.db'));
    const journal = await opened.journal(runId).finally(() => opened.close());
    expect(journal.filter((entry) => entry.kind === 'trace').map((entry) => entry.data)).toEqual([
      { traceparent: `00-${first.traceId}-${first.spanId}-01` },
    ]);
  });
});
