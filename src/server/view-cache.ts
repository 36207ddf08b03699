// GET /v1/runs/:id without rebuilding the run each time: a completed or stopped run never changes, so its view's
// JSON is kept and sent as is; a run live in this server is read again only once its event log has moved on (no
// store read while no event came); any other run is looked up by its summary (one row) and rebuilt only when that
// moved on. A rebuild reads just the journal entries after the ones held. Each answer carries an ETag of its bytes.
import { createHash } from 'node:crypto';
import { effectiveJournal } from '../durable/effective-journal.js';
import { runNotFound, type RunStore, type StoredEntry } from '../store/types.js';
import { withChildRuns } from '../durable/run-tree.js';
import { viewOfLoaded } from './run-view.js';

export interface RenderedView {
  body: string;
  /** The body as UTF-8, made once per change: sending a string encoded the whole view again on every GET. */
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
}

/** What this server adds to a stored run: whether it is running here, and its last event seq. */
export interface HostedFacts {
  live: boolean;
  lastSeq: number;
}

interface CachedView {
  /** What the summary looked like when the view was built: a change of any of these means rebuild. */
  stamp: string;
  final: boolean;
  /** The hosted run's last event seq when the view was built. */
  seq: number;
  journal: StoredEntry[];
  /** The view's JSON without its closing brace, for the hosted facts to follow. */
  prefix: string;
  facts: string;
  rendered: RenderedView;
}

const finalStatuses = new Set(['completed', 'stopped']);

const etagOf = (body: string): string => `"${createHash('sha1').update(body).digest('base64url')}"`;

export class RunViewCache {
  readonly #views = new Map<string, CachedView>();

  constructor(
    private readonly store: RunStore,
    private readonly shownSlots: readonly string[],
    private readonly maxRuns = 2_000,
  ) {}

  /** Drops a run's view: a stopped run that goes on again (after a decision) starts a new event log at seq 1. */
  forget(runId: string): void {
    this.#views.delete(runId);
  }

  async render(runId: string, hosted: HostedFacts): Promise<RenderedView> {
    const known = this.#views.get(runId);
    const unchanged = known !== undefined && (hosted.live ? known.seq === hosted.lastSeq : known.final);
    const cached = unchanged ? known : await this.#refresh(runId, known, hosted.lastSeq);
    // Oldest use first in the map: a view read again moves to the end, the front is dropped when over the limit.
    this.#views.delete(runId);
    this.#views.set(runId, cached);
    if (this.#views.size > this.maxRuns) this.#views.delete(this.#views.keys().next().value!);
    const facts = `,"live":${hosted.live},"lastSeq":${hosted.lastSeq}}`;
    if (cached.facts !== facts) {
      const body = cached.prefix + facts;
      cached.facts = facts;
      cached.rendered = { body, bytes: new TextEncoder().encode(body), etag: etagOf(body) };
    }
    return cached.rendered;
  }

  async #refresh(runId: string, cached: CachedView | undefined, seq: number): Promise<CachedView> {
    const run = await this.store.get(runId);
    if (run === undefined) {
      this.#views.delete(runId);
      throw runNotFound(runId);
    }
    const stamp = `${run.epoch}:${run.head}:${run.updatedAt}:${run.status}`;
    if (cached !== undefined && cached.stamp === stamp) return { ...cached, seq };
    // The journal only grows: read what came after the entries already held.
    const held = cached?.journal ?? [];
    const heldThrough = held.at(-1)?.seq ?? 0;
    const journal =
      heldThrough > 0 && run.head >= heldThrough
        ? [...held, ...(await this.store.journal(runId, heldThrough))]
        : await this.store.journal(runId);
    const checkpoint = await this.store.latestCheckpoint(runId);
    // With the runs its tool calls started (agents): a lookup per tool call, made only when the run moved on.
    const tree = await withChildRuns(this.store, {
      run,
      journal: effectiveJournal(journal),
      checkpoints: checkpoint === undefined ? [] : [checkpoint],
    });
    const view = viewOfLoaded(tree, this.shownSlots);
    const final = finalStatuses.has(run.status);
    // A finished run is never read again from the store: its entries need not be kept.
    return {
      stamp,
      final,
      seq,
      journal: final ? [] : journal,
      prefix: JSON.stringify(view).slice(0, -1),
      facts: '',
      rendered: { body: '', bytes: new Uint8Array(0), etag: '' },
    };
  }
}
