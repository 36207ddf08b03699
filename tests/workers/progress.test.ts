// Coarse job progress: a run's events reach Redis as a few batched updates, in order, the last ones at the job's end.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/stage.js';
import { batchedProgress, eventsOfProgress, type ProgressBatch } from '../../src/workers/progress.js';

const event = (index: number): RunEvent =>
  ({
    runId: 'r',
    seq: index,
    type: 'stage_started',
    zone: 'iteration',
    stage: 'think',
    iteration: 1,
    at: 1_000 + index,
    data: { index },
  }) as unknown as RunEvent;

describe('batched job progress', () => {
  it('sends the events gathered within an interval as one update, and the rest when flushed', async () => {
    const sent: ProgressBatch[] = [];
    let delivered: () => void = () => {};
    const firstDelivered = new Promise<void>((resolve) => (delivered = resolve));
    const progress = batchedProgress(async (batch) => (sent.push(batch), delivered()), 20);
    for (let index = 1; index <= 50; index++) progress.onEvent(event(index));
    await firstDelivered;
    expect(sent).toHaveLength(1);
    expect(sent[0]!.events.map((item) => (item.data as { index: number }).index)).toEqual(
      Array.from({ length: 50 }, (_, index) => index + 1),
    );
    progress.onEvent(event(51));
    await progress.flush();
    expect(sent.map((batch) => batch.events.length)).toEqual([50, 1]);
    // Nothing gathered: a flush sends nothing.
    await progress.flush();
    expect(sent).toHaveLength(2);
  });

  it("a failed update is not the run's failure; later ones still go", async () => {
    const sent: number[] = [];
    let calls = 0;
    const progress = batchedProgress(async (batch) => {
      calls += 1;
      if (calls === 1) throw new Error('Redis said no');
      sent.push(batch.events.length);
    }, 60_000);
    progress.onEvent(event(1));
    await progress.flush();
    progress.onEvent(event(2));
    progress.onEvent(event(3));
    await progress.flush();
    expect(sent).toEqual([2]);
  });

  it('a follower unpacks a batch, and still reads a single event from an older worker', () => {
    expect(eventsOfProgress({ events: [{ type: 'a' }, { type: 'b' }] })).toEqual([{ type: 'a' }, { type: 'b' }]);
    expect(eventsOfProgress({ type: 'stage_started' })).toEqual([{ type: 'stage_started' }]);
    expect(eventsOfProgress(42)).toEqual([]);
  });
});
