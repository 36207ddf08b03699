// Fast reads: a run's view is the same whether built afresh or kept, carries an ETag (304 when unchanged), follows a
// live run as it goes, and the list pages with limit and before.
import { effectiveJournal } from '../../src/durable/effective-journal.js';
import { describe, expect, it } from 'vitest';
import { shownSlots } from '../../app/shown-slots.js';
import { runViewOf, viewOfLoaded } from '../../src/server/run-view.js';
import { RunViewCache } from '../../src/server/view-cache.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import type { RunStore } from '../../src/store/types.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { jsonPost, loopbackModelEnv, useServes, waitFor, waitForStatus } from './serve-support.js';

const loopback = useLoopbackServer();
const serves = useServes();

const owner = { id: 'reader-test', pid: process.pid, host: 'test' };
const header = (runId: string, createdAt: number) => ({
  runId,
  pipeline: 'react',
  fingerprint: 'f',
  version: '0',
  input: { task: `task ${runId}` },
  options: {},
  createdAt,
});
const entry = (seq: number, stage: string) => ({
  seq,
  kind: 'stage' as const,
  zone: 'iteration' as const,
  iteration: 1,
  stage,
  at: 1_000 + seq,
  data: { signal: null },
});

/** The real memory store, counting the reads the cache makes of it. */
function countingStore(store: RunStore) {
  const reads = { get: 0, journal: 0 };
  const counted: RunStore = {
    ...store,
    get: (runId) => (reads.get++, store.get(runId)),
    journal: (runId, afterSeq) => (reads.journal++, store.journal(runId, afterSeq)),
  };
  return { store: counted, reads };
}

describe('the view cache', () => {
  it('builds a live run again only after a new event, from the new journal entries only, and a finished run once', async () => {
    const base = memoryStore();
    const { store, reads } = countingStore(base);
    const cache = new RunViewCache(store, shownSlots);
    const claim = await base.create(header('r1', 1_000), owner, 60_000);
    await base.append(claim, [entry(1, 'context'), entry(2, 'think')]);
    const first = await cache.render('r1', { live: true, lastSeq: 2 });
    expect(JSON.parse(first.body)).toEqual({ ...(await runViewOf(base, 'r1', shownSlots)), live: true, lastSeq: 2 });
    // No event since: the store is not read at all, and the bytes and ETag are the same.
    const again = await cache.render('r1', { live: true, lastSeq: 2 });
    expect(again).toEqual(first);
    // The same bytes object is sent again: the view is encoded once per change, not on every GET.
    expect(again.bytes).toBe(first.bytes);
    expect(new TextDecoder().decode(first.bytes)).toBe(first.body);
    expect(reads).toEqual({ get: 1, journal: 1 });
    await base.append(claim, [entry(3, 'act')]);
    const grown = await cache.render('r1', { live: true, lastSeq: 3 });
    expect(grown.etag).not.toBe(first.etag);
    expect(JSON.parse(grown.body)).toEqual({ ...(await runViewOf(base, 'r1', shownSlots)), live: true, lastSeq: 3 });
    expect(reads.journal).toBe(2);
    await base.finish(claim, {
      status: 'completed',
      answer: '42',
      partial: false,
      stopReason: { kind: 'answer', stage: 'think', message: 'done' },
      iterations: 1,
      tokens: 3,
      result: {},
    });
    const finished = await cache.render('r1', { live: false, lastSeq: 3 });
    expect(JSON.parse(finished.body)).toEqual({
      ...(await runViewOf(base, 'r1', shownSlots)),
      live: false,
      lastSeq: 3,
    });
    const getsThen = reads.get;
    for (let index = 0; index < 5; index++)
      expect(await cache.render('r1', { live: false, lastSeq: 3 })).toEqual(finished);
    // A finished run never changes: it is sent without looking at the store at all.
    expect(reads.get).toBe(getsThen);
    await expect(cache.render('nope', { live: false, lastSeq: 0 })).rejects.toThrow(/nope/);
  });
});

describe('a run view', () => {
  it('carries the slots the application names, and no other', async () => {
    const store = memoryStore();
    const claim = await store.create(header('r2', 1_000), owner, 60_000);
    await store.append(claim, [entry(1, 'context')]);
    const run = (await store.get('r2'))!;
    const checkpoint = {
      seq: 1,
      position: {
        zone: 'iteration' as const,
        iteration: 1,
        nextStage: 1,
        steer: null,
        breakRequested: false,
        ended: null,
      },
      state: { notes: ['n1'], plan: { steps: [] }, secret: 'kept out' },
      stateHash: 'h',
      at: 1_001,
    };
    const view = viewOfLoaded(
      { run, journal: effectiveJournal(await store.journal('r2')), checkpoints: [checkpoint] },
      ['notes', 'verdict'],
    );
    expect(view.slots).toEqual({ notes: ['n1'], verdict: null });
  });
});

describe('GET /v1/runs/:id over HTTP', () => {
  it('answers the same view as a fresh build, with an ETag; If-None-Match gets a bodiless 304', async () => {
    loopback.server
      .replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"6*7"}' }])
      .replyWith({ content: 'It is 42.' });
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const { runId } = (await (await serve.call('/v1/runs', jsonPost({ task: 'what is 6 * 7?' }))).json()) as {
      runId: string;
    };
    await waitForStatus(serve, runId, ['completed']);
    await waitFor(
      async () =>
        ((await (await serve.call(`/v1/runs/${runId}`)).json()) as { live: boolean }).live ? undefined : true,
      'the run to end here',
    );
    const response = await serve.call(`/v1/runs/${runId}`);
    const etag = response.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    const served = (await response.json()) as Record<string, unknown>;
    const reader = sqliteStore(serve.storeFile);
    try {
      expect(served).toEqual({
        ...JSON.parse(JSON.stringify(await runViewOf(reader, runId, shownSlots))),
        live: false,
        lastSeq: served.lastSeq,
      });
    } finally {
      await reader.close();
    }
    const unchanged = await serve.call(`/v1/runs/${runId}`, { headers: { 'if-none-match': etag! } });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect((await serve.call(`/v1/runs/${runId}`, { headers: { 'if-none-match': '"something-else"' } })).status).toBe(
      200,
    );
  });
});

describe('GET /v1/runs pages', () => {
  it('limit and before walk every run once, newest first; a bad cursor is a 400', async () => {
    loopback.server.replyWith({ content: 'ok', times: 5 });
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const started: string[] = [];
    for (let index = 0; index < 5; index++) {
      const { runId } = (await (await serve.call('/v1/runs', jsonPost({ task: `task ${index}` }))).json()) as {
        runId: string;
      };
      await waitForStatus(serve, runId, ['completed']);
      started.push(runId);
    }
    const seen: string[] = [];
    let before: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page = (await (await serve.call(`/v1/runs?limit=2${before ? `&before=${before}` : ''}`)).json()) as {
        runs: Array<{ runId: string }>;
        next: string | null;
      };
      expect(page.runs.length).toBeLessThanOrEqual(2);
      seen.push(...page.runs.map((run) => run.runId));
      before = page.next;
      if (before === null) break;
    }
    expect(seen).toEqual([...started].reverse());
    const bad = await serve.call('/v1/runs?before=no-such-run');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
      /^before: no run "no-such-run"/,
    );
  });
});
