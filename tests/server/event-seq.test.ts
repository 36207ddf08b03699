// One seq for a run's events, whoever reads them: the `id:` of each block over GET /v1/runs/:id/events is the seq
// the run gave the event, a reader that reconnects with Last-Event-ID gets the rest under the same seqs, and the
// whole list is what `stageloop run --events` prints for the same recipe and task (seq 1, 2, 3... with no gap).
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/stage.js';
import { runCli } from '../support/run-cli.js';
import { jsonPost, readEvents, useServes, waitForStatus, type ServerSentEvent } from './serve-support.js';

const serves = useServes();
const task = 'What is 12 * 7?';

/** What places an event in its run, without the run's id and the time. */
const placeOf = (event: Pick<RunEvent, 'seq' | 'type' | 'zone' | 'stage' | 'iteration'>) => ({
  seq: event.seq,
  type: event.type,
  zone: event.zone,
  stage: event.stage,
  iteration: event.iteration,
});
const runEvents = (blocks: ServerSentEvent[]) => blocks.filter((block) => block.id !== undefined);

describe('the seq of a run event', () => {
  it("is the same over SSE (after a reconnect with Last-Event-ID too) as in the run's own events", async () => {
    // The offline model (no model settings): the CLI and the server run the same recipe, deterministically.
    const serve = await serves.start({});
    const { runId } = (await (await serve.call('/v1/runs', jsonPost({ task }))).json()) as { runId: string };
    const before = runEvents(
      await readEvents(
        await serve.call(`/v1/runs/${runId}/events`),
        (block, all) => runEvents(all).length === 3 && block.id !== undefined,
      ),
    );
    await waitForStatus(serve, runId, ['completed']);
    const after = await readEvents(
      await serve.call(`/v1/runs/${runId}/events`, { headers: { 'last-event-id': before.at(-1)!.id! } }),
    );
    expect(after.at(-1)!.event).toBe('end');
    const blocks = [...before, ...runEvents(after)];
    const events = blocks.map((block) => JSON.parse(block.data) as RunEvent);
    expect(blocks.map((block) => Number(block.id))).toEqual(events.map((event) => event.seq));
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
    expect(events.at(-1)!.type).toBe('run_finished');
    expect(JSON.parse(after.at(-1)!.data)).toEqual({ runId, lastSeq: events.length });

    const cli = await runCli(['run', '--events', task]);
    expect(cli.code).toBe(0);
    const printed = cli.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEvent);
    expect(events.map(placeOf)).toEqual(printed.map(placeOf));
  });
});
