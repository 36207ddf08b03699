// The HTTP API and the console on Hono: /v1/* answers JSON (or SSE), / serves the console. Every error is JSON.
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { messageOf } from '../common/error-message.js';
import { codeOf, StageloopError } from '../common/stageloop-error.js';
import { runNotFound, type RunStore } from '../store/types.js';
import { accessControl, allowedHostsFor } from './access.js';
import { consolePaths, consoleRoutes } from './console/routes.js';
import { protocolPaths, protocolRoutes } from './protocols/index.js';
import type { SessionStore } from '../sessions/types.js';
import { sendError } from './errors.js';
import {
  afterSeqOf,
  decisionsSchema,
  listQuerySchema,
  parseWith,
  startRunSchema,
  type DecisionsBody,
} from './request-schemas.js';
import type { RunContinuation } from './run-host.js';
import type { RunRecoverer } from './protocols/mcp-run-tasks.js';
import { keepingTraceHeaders, startRun, type StartRunServices } from './start-run.js';
import { listItemOf } from './run-view.js';
import { RunViewCache } from './view-cache.js';
import { streamEvents, streamRunChanges, streamStoredStatus, streamWatchedStatus } from './sse.js';

export type { PipelineInfo } from './pipeline-info.js';

/**
 * Checks people's decisions for an interrupted run (approvals) and says how to continue it; the server continues it
 * through its run host, so its events stream live and a drain waits for it. Throws (a 4xx) for a wrong decision.
 */
export type DecisionsAdapter = (runId: string, decisions: DecisionsBody['decisions']) => Promise<RunContinuation>;

export interface ServerAppOptions extends StartRunServices {
  store: RunStore;
  /** The state slots a run's view carries (the application's stages own them; this server knows no stage). */
  shownSlots: readonly string[];
  decide?: DecisionsAdapter;
  /** Continues a run whose process died (an MCP client asking for its task); see protocols/mcp-run-tasks.ts. */
  continueDeadRun?: RunRecoverer;
  /** Opens the session store: session facts are served as MCP resources (protocols/mcp-session-facts.ts). */
  sessions?: () => Promise<SessionStore>;
  token?: string;
  /** Host names the server answers to (default: the loopback names) and other origins allowed to change runs. */
  access?: { allowedHosts?: readonly string[]; allowedOrigins?: readonly string[] };
  /** Largest request body, in bytes (default 1 MiB). */
  bodyLimitBytes?: number;
}

export function serverApp(options: ServerAppOptions): Hono {
  const { store, host } = options;
  const app = new Hono();
  const views = new RunViewCache(store, options.shownSlots);
  const limit = bodyLimit({
    maxSize: options.bodyLimitBytes ?? 1024 * 1024,
    onError: (context) =>
      sendError(
        context,
        'too_large',
        `the request body is over ${options.bodyLimitBytes ?? 1024 * 1024} bytes: send a shorter task`,
      ),
  });
  app.onError((error, context) => {
    // Every error's code picks its status from the one table; a user's mistake is never a 500.
    return sendError(context, codeOf(error), messageOf(error));
  });
  app.notFound((context) =>
    sendError(context, 'not_found', `no such endpoint: ${context.req.method} ${context.req.path} (see GET /v1/health)`),
  );
  // First of all, for every route added here or later: Host, body type, Origin, CORS and the token in one place.
  app.use(
    '*',
    accessControl({
      allowedHosts: options.access?.allowedHosts ?? allowedHostsFor('127.0.0.1'),
      allowedOrigins: options.access?.allowedOrigins ?? [],
      publicPaths: consolePaths,
      ...(options.token !== undefined && { token: options.token }),
    }),
  );
  // Every route and protocol endpoint keeps the W3C trace context it came with; startRun makes the run part of it.
  app.use('*', (context, next) =>
    keepingTraceHeaders(
      { traceparent: context.req.header('traceparent'), tracestate: context.req.header('tracestate') },
      next,
    ),
  );

  app.get('/v1/health', (context) => context.json({ ok: true, accepting: host.accepting }));
  app.get('/v1/pipelines', (context) =>
    context.json({ pipelines: options.pipelines, default: options.defaultPipeline }),
  );

  app.post('/v1/runs', limit, async (context) => {
    const { runId, log } = await startRun(options, parseWith(startRunSchema, await jsonBody(context)));
    if (wantsEvents(context)) return streamEvents(runId, log, 0);
    return context.json({ runId }, 201, { Location: `/v1/runs/${runId}` });
  });

  app.get('/v1/runs', async (context) => {
    // Asked as an event stream: the runs that start or end here from now on, one `run` event each (the console's list).
    if (wantsEvents(context)) return streamRunChanges(host, store);
    const query = parseWith(listQuerySchema, context.req.query());
    // One more than asked for says whether another page follows; its cursor is the last run listed.
    const runs = await store.list({ ...query, limit: query.limit + 1 }).catch((error: unknown) => {
      if (codeOf(error) === 'not_found')
        throw new StageloopError(
          'usage',
          `before: no run "${query.before}" to list after: pass the "next" of the previous page`,
        );
      throw error;
    });
    const page = runs.slice(0, query.limit);
    return context.json({ runs: page.map(listItemOf), next: runs.length > query.limit ? page.at(-1)!.runId : null });
  });

  app.get('/v1/runs/:id', async (context) => {
    const runId = context.req.param('id');
    const view = await views.render(runId, { live: host.isActive(runId), lastSeq: host.log(runId)?.lastSeq ?? 0 });
    // no-cache: a browser keeps the answer but asks again, and gets a bodiless 304 while the run is unchanged.
    const headers = { etag: view.etag, 'cache-control': 'no-cache' };
    if (context.req.header('if-none-match') === view.etag) return context.body(null, 304, headers);
    return context.body(view.bytes, 200, { ...headers, 'content-type': 'application/json' });
  });

  app.get('/v1/runs/:id/events', async (context) => {
    const runId = context.req.param('id');
    const afterSeq = afterSeqOf(context.req.header('last-event-id'), context.req.query('after'));
    const log = host.log(runId);
    if (log !== undefined) return streamEvents(runId, log, afterSeq);
    const run = await store.get(runId);
    if (run === undefined) throw runNotFound(runId);
    // Held by another process (a worker elsewhere): followed through the store's change feed where it has one.
    if (run.status === 'running' && store.watch !== undefined)
      return streamWatchedStatus({ ...store, watch: store.watch.bind(store) }, run);
    return streamStoredStatus(runId, run.status);
  });

  app.post('/v1/runs/:id/cancel', limit, async (context) => {
    const runId = context.req.param('id');
    const run = await store.get(runId);
    if (run === undefined) throw runNotFound(runId);
    if (!host.cancel(runId, 'cancelled over HTTP')) {
      throw new StageloopError(
        'conflict',
        `run ${runId} is not running in this server (it is ${run.status}); nothing to cancel`,
      );
    }
    return context.json({ runId, status: 'cancelling' }, 202);
  });

  app.post('/v1/runs/:id/decisions', limit, async (context) => {
    const runId = context.req.param('id');
    const body = parseWith(decisionsSchema, await jsonBody(context));
    const run = await store.get(runId);
    if (run === undefined) throw runNotFound(runId);
    if (run.status !== 'interrupted')
      throw new StageloopError('conflict', `this run is not waiting for a decision (run ${runId} is ${run.status})`);
    if (options.decide === undefined)
      throw new StageloopError('unavailable', 'this server cannot resume interrupted runs with decisions yet');
    if (!host.accepting)
      throw new StageloopError(
        'unavailable',
        'the server is shutting down and continues no runs: decide with "stageloop approve" or after it restarts',
      );
    const continuation = await options.decide(runId, body.decisions);
    views.forget(runId);
    await host.continue(runId, continuation);
    return context.json({ runId, status: 'resuming' }, 202);
  });

  // Clients people already have (OpenAI SDK, AI SDK, MCP, A2A) start ordinary runs through the same host.
  for (const path of protocolPaths) app.use(path, limit);
  app.route('/', protocolRoutes(options));
  app.route('/', consoleRoutes());
  return app;
}

async function jsonBody(context: Context): Promise<unknown> {
  try {
    return await context.req.json();
  } catch {
    throw new StageloopError(
      'usage',
      'the request body is not JSON: send Content-Type: application/json and a JSON object',
    );
  }
}

function wantsEvents(context: Context): boolean {
  return (context.req.header('accept') ?? '').includes('text/event-stream');
}
