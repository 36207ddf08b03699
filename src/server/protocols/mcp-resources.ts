// Recorded runs as MCP resources: `stageloop://runs/{id}` (the run's view as JSON) and `stageloop://runs/{id}/timeline`
// (its timeline as text), listed newest first, their ids completed, and notifications/resources/updated while a run
// goes on: on 2025-11-25 for the URIs a client subscribed to (`resources/subscribe`), on 2026-07-28 for every run this
// server hosts, which the serving entry passes to the listen streams that asked for the URI (`subscriptions/listen`).
import { ResourceTemplate, type McpServer, type ReadResourceResult } from '@modelcontextprotocol/server';
import type { TimelineItem } from '../../durable/timeline.js';
import type { RunStore } from '../../store/types.js';
import type { RunHost } from '../run-host.js';
import { runViewOf } from '../run-view.js';
import type { McpEra } from './mcp-task-methods.js';

export interface RunResourceServices {
  store: RunStore;
  host: RunHost;
  shownSlots?: readonly string[];
}

/** Runs listed by resources/list and offered by completion. */
const listedRuns = 50;
const runPattern = /^stageloop:\/\/runs\/([^/]+)(\/timeline)?$/;

export function registerRunResources(server: McpServer, services: RunResourceServices, era: McpEra): void {
  const { store } = services;
  const completeId = async (value: string) =>
    (await store.list({ limit: listedRuns })).map((run) => run.runId).filter((id) => id.startsWith(value));
  const read = async (uri: URL, runId: string, asText: boolean): Promise<ReadResourceResult> => {
    const view = await runViewOf(store, runId, services.shownSlots ?? []);
    const text = asText ? timelineText(view.run.runId, view.run.status, view.timeline) : JSON.stringify(view);
    return { contents: [{ uri: uri.href, mimeType: asText ? 'text/plain' : 'application/json', text }] };
  };
  server.registerResource(
    'run',
    new ResourceTemplate('stageloop://runs/{id}', {
      list: async () => ({
        resources: (await store.list({ limit: listedRuns })).map((run) => ({
          uri: `stageloop://runs/${run.runId}`,
          name: `run ${run.runId}`,
          description: `${run.pipeline} run (${run.status}): ${String(run.input.task ?? '').slice(0, 120)}`,
          mimeType: 'application/json',
        })),
      }),
      complete: { id: completeId },
    }),
    {
      title: 'A recorded run',
      description: 'A recorded run as JSON: its header, status, timeline and shown state slots (as GET /v1/runs/{id}).',
      mimeType: 'application/json',
    },
    (uri, { id }) => read(uri, String(id), false),
  );
  server.registerResource(
    'run-timeline',
    new ResourceTemplate('stageloop://runs/{id}/timeline', { list: undefined, complete: { id: completeId } }),
    {
      title: "A recorded run's timeline",
      description: 'A recorded run as text: one line per stage, model call, tool call and decision.',
      mimeType: 'text/plain',
    },
    (uri, { id }) => read(uri, String(id), true),
  );
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  if (era === 'legacy') subscribeToRuns(server, services.host);
}

/** The URIs a run's resources have. */
const urisOfRun = (runId: string) => [`stageloop://runs/${runId}`, `stageloop://runs/${runId}/timeline`];

/**
 * 2026-07-28's updates: every run this host starts is followed, and each stage end (and its end) publishes its
 * resources' URIs; the entry's listen router sends them to the streams subscribed to them. Returns the stop.
 */
export function followRunUpdates(host: RunHost, publish: (uri: string) => void): () => void {
  const controller = new AbortController();
  const following = new Set<string>();
  const follow = async (runId: string) => {
    const log = host.log(runId);
    if (log === undefined || following.has(runId) || !host.isActive(runId)) return;
    following.add(runId);
    try {
      for await (const event of log.read(log.lastSeq, controller.signal)) {
        if (event.type === 'stage_finished' || event.type === 'run_finished') urisOfRun(runId).forEach(publish);
      }
    } finally {
      following.delete(runId);
    }
  };
  const stopWatching = host.watch((runId) => void follow(runId).catch(() => undefined));
  return () => {
    stopWatching();
    controller.abort();
  };
}

/** One line per timeline item: where it happened, what, and how long it took. */
export function timelineText(runId: string, status: string, timeline: readonly TimelineItem[]): string {
  const lines = timeline.map((item) => {
    const where = `${item.zone}${item.zone === 'iteration' ? ` ${item.iteration}` : ''}`;
    const took = item.durationMs === undefined ? '' : ` (${item.durationMs} ms)`;
    return `[${where}] ${item.kind}${item.stage === null ? '' : ` ${item.stage}`}: ${item.summary}${took}`;
  });
  return [`run ${runId}: ${status}`, ...lines].join('\n') + '\n';
}

/**
 * resources/subscribe for a run's URIs: while the run goes on in this server, each stage end (and its end) sends
 * notifications/resources/updated. Other URIs are accepted and never change.
 */
function subscribeToRuns(server: McpServer, host: RunHost): void {
  const following = new Map<string, AbortController>();
  server.server.setRequestHandler('resources/subscribe', async ({ params: { uri } }) => {
    const runId = runPattern.exec(uri)?.[1];
    const log = runId === undefined ? undefined : host.log(runId);
    if (log === undefined || following.has(uri)) return {};
    const controller = new AbortController();
    following.set(uri, controller);
    void (async () => {
      for await (const event of log.read(log.lastSeq, controller.signal)) {
        if (event.type !== 'stage_finished' && event.type !== 'run_finished') continue;
        await server.server.sendResourceUpdated({ uri }).catch(() => controller.abort());
      }
    })()
      .catch(() => undefined)
      .finally(() => following.delete(uri));
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async ({ params: { uri } }) => {
    following.get(uri)?.abort();
    following.delete(uri);
    return {};
  });
  server.server.onclose = () => following.forEach((controller) => controller.abort());
}
