// The server's application side: a request's recipe, the run services over the store (the HTTP server and
// `stageloop mcp` share them) and the HTTP server started on them. The CLI's `serve` and `mcp` commands, bench/ and
// the tests start them from here; runs started this way are ordinary recorded runs `stageloop show/resume` work on.
import { zones } from '../src/engine/pipeline.js';
import type { Environment } from '../src/model/config.js';
import type { DecisionsAdapter, PipelineInfo } from '../src/server/app.js';
import type { Decision } from '../src/durable/decisions.js';
import type { RunAssembly, RunContinuation, RunHost } from '../src/server/run-host.js';
import type { RunRecoverer } from '../src/server/protocols/mcp-run-tasks.js';
import { runNotFound, type RunStore, type RunSummary } from '../src/store/types.js';
import type { DecisionsBody, StartRunBody } from '../src/server/request-schemas.js';
import type { JsonObject } from '../src/common/json.js';
import { defaultUser, type SessionStore } from '../src/sessions/types.js';
import type { ListeningServer } from '../src/server/listen.js';
import type { CalculatorWorkerHost } from '../src/tools/calculator-host.js';
import { loadOptional, optionalParts } from '../src/common/optional-package.js';
import type { Deps } from '../src/engine/stage.js';
import type { TraceMode } from '../otel.config.js';
import { assemble, pipelineNames, pipelineOf } from './assemble.js';
import { loadStageloopConfig, type AgentConfig } from './config.js';
import { shownSlots } from './shown-slots.js';
import { makeRecipe, recipeOf, type RunRecipe, type RunRecipeInput } from './recipe.js';
import { openRunStore } from './store.js';
import type { PendingDecision } from '../src/engine/signal.js';

/** Where and how the HTTP server listens, and the store it records in (`stageloop serve`'s flags, parsed). */
export interface ServeFlags {
  port: number;
  host: string;
  token?: string;
  store?: string;
  allowHosts?: string[];
  allowOrigins?: string[];
  /** Traces every run the server starts (`--trace`), as `stageloop run --trace` does. */
  trace?: TraceMode;
  /** The config file whose agents the server offers (default: stageloop.config.json in the working folder, if any). */
  config?: string;
  /** Takes up the store's runs whose owner is gone, at start and then periodically (default true; `--no-recover`). */
  recover?: boolean;
}

/** A POST /v1/runs body as a recipe: the built-in tools and this server's model; the client picks the rest it may. */
export function recipeOfRequest(
  body: StartRunBody & { pipeline: string },
  agents: readonly AgentConfig[] = [],
): RunRecipe {
  return makeRecipe(
    {
      pipeline: body.pipeline,
      // The config's agents are kept with the run (resume and replay build the same team without the file).
      agents: Object.fromEntries(agents.map(({ name, ...agent }) => [name, agent])),
      ...(body.agent !== undefined && { agent: body.agent }),
      // The body's options are guard settings already (the same schema, less what a client may not switch off).
      guards: body.options ?? {},
      ...(body.approveTools !== undefined && { approvals: { tools: body.approveTools } }),
      ...(body.outputSchema !== undefined && { outputSchema: body.outputSchema }),
      ...(body.session !== undefined && { session: { name: body.session, user: body.user ?? defaultUser } }),
    },
    'the request',
  );
}

export interface RunningServe extends ListeningServer {
  notice: string;
  /** Stops taking runs, cancels running ones at their next checkpoint, waits for them, closes the server and the store. */
  stop(): Promise<void>;
}

/** What serves runs (the HTTP server, `stageloop mcp`): the store, the run host and the app's assembler over them. */
export interface RunServices {
  store: RunStore;
  host: RunHost;
  pipelines: PipelineInfo[];
  /** The config file's agents: a prompt each on the MCP server, and a run request may name one. */
  agents: AgentConfig[];
  /** The state slots a run's view shows. */
  shownSlots: readonly string[];
  assemble(body: StartRunBody & { pipeline: string }): Promise<RunAssembly>;
  decide: DecisionsAdapter;
  /** Continues a run whose owner is gone, in the host; resolves with its id once claimed (see startRecovery). */
  recover(run: RunSummary, recoveredBy: string): Promise<string>;
  /** Continues a run whose process died, from its last checkpoint (an MCP client asking for the run's task). */
  continueDeadRun: RunRecoverer;
  /** The session store (opened at first use): session runs keep their turns and facts there. */
  sessions(): Promise<SessionStore>;
  /** Which model is in use and where runs are recorded, for stderr. */
  notice: string;
  /** Stops taking runs, lets running ones reach a checkpoint, closes the stores. */
  close(): Promise<void>;
}

export async function runServices(
  storeFlag: string | undefined,
  env: Environment,
  calculatorHost?: CalculatorWorkerHost,
  instrument: (deps: Partial<Deps>) => Partial<Deps> = (deps) => deps,
  configFile?: string,
): Promise<RunServices> {
  // Read first: a config file with a mistake stops the server before it opens anything.
  const { agents } = loadStageloopConfig({ ...(configFile !== undefined && { configFile }), cwd: process.cwd(), env });
  const [{ RunHost }, { runPipeline }] = await Promise.all([
    import('../src/server/run-host.js'),
    import('../src/durable/durable-run.js'),
  ]);
  const recording = await openRunStore(storeFlag, env);
  // One session store for every session run of this server, opened at the first.
  let sessions: SessionStore | undefined;
  const host = new RunHost((assembly, input, options) =>
    runPipeline(assembly.pipeline, input, {
      ...options,
      store: recording.store,
      hashEvery: 'stage',
      ...(assembly.record && { record: assembly.record }),
    }),
  );
  let opening: Promise<SessionStore> | undefined;
  const openSessions = (): Promise<SessionStore> =>
    (opening ??= import('../src/sessions/open-sessions.js')
      .then(({ openSessionStore }) => openSessionStore({ env, ...(storeFlag !== undefined && { path: storeFlag }) }))
      .then((opened) => (sessions = opened)));
  const assembleRun = async (recipe: RunRecipe) => {
    if (recipe.session !== undefined) await openSessions();
    const assembled = await assemble(recipe, env, {
      ...(calculatorHost !== undefined && { calculatorHost }),
      ...(sessions !== undefined && { sessions }),
    });
    return { ...assembled, deps: instrument(assembled.deps) };
  };
  let notice: string;
  try {
    const probe = await assembleRun(makeRecipe({}));
    notice = probe.notice;
    await probe.close();
  } catch (error) {
    await recording.store.close().catch(() => undefined);
    throw error;
  }
  // The server continues a stopped run through its host (live events, drained at shutdown); the assembly closes after.
  const continuationOf = async (
    run: RunSummary,
    decisions?: Record<string, Decision>,
    recoveredBy?: string,
  ): Promise<RunContinuation> => {
    const { resumeRun } = await import('../src/durable/durable-run.js');
    const assembled = await assembleRun(recipeOf(run));
    return {
      deps: assembled.deps,
      resume: (options) =>
        resumeRun(recording.store, run.runId, {
          pipeline: assembled.pipeline,
          ...options,
          ...(decisions !== undefined && { decisions }),
          ...(recoveredBy !== undefined && { recoveredBy }),
        }).finally(() => assembled.close()),
    };
  };
  const pipelines: PipelineInfo[] = pipelineNames.map((name) => {
    const pipeline = pipelineOf(makeRecipe({ pipeline: name }));
    const [setup, iteration, finalize] = zones.map((zone) => pipeline[zone].map((stage) => stage.name)) as [
      string[],
      string[],
      string[],
    ];
    return { name, maxIterations: pipeline.maxIterations, setup, iteration, finalize };
  });
  return {
    store: recording.store,
    host,
    pipelines,
    agents,
    shownSlots,
    sessions: openSessions,
    notice: `${notice}; runs recorded in ${recording.file}`,
    // An interrupted run (a CLI run with --approve-tools, say) continues in this process with the person's decisions.
    async decide(runId, decisions) {
      const [{ checkDecisions }, { effectiveJournal }] = await Promise.all([
        import('../src/durable/decisions.js'),
        import('../src/durable/effective-journal.js'),
      ]);
      const run = await recording.store.get(runId);
      if (run === undefined) throw runNotFound(runId);
      const byId: Record<string, Decision> = Object.fromEntries(
        decisions.map((decision) => [decision.callId, decisionOf(decision)]),
      );
      // Checked before anything starts: a bad decision (an unknown call id) is refused with its own code.
      checkDecisions(runId, run.status, effectiveJournal(await recording.store.journal(runId)), byId);
      // An answer to an MCP server's question must fill its form (docs/mcp.md): 400 with the fields, not a resume.
      const pending = (run.outcome?.result.pending ?? []) as PendingDecision[];
      if (pending.some((item) => item.kind === 'elicitation'))
        await (await import('../src/tools/mcp/elicitation.js')).checkElicitationAnswers(pending, byId);
      return continuationOf(run, byId);
    },
    // A run whose process died (its claim says so when resumed) continues here from its last checkpoint.
    async continueDeadRun(runId) {
      const run = await recording.store.get(runId);
      if (run === undefined) throw runNotFound(runId);
      return continuationOf(run);
    },
    async recover(run, recoveredBy) {
      return host.recover(await continuationOf(run, undefined, recoveredBy));
    },
    async assemble(body: StartRunBody & { pipeline: string }) {
      const assembled = await assembleRun(recipeOfRequest(body, agents));
      return { pipeline: assembled.pipeline, deps: assembled.deps, record: assembled.record };
    },
    async close() {
      await host.drain('the server is shutting down');
      await recording.store.close().catch(() => undefined);
      sessions?.close();
    },
  };
}

export async function startServe(
  flags: ServeFlags,
  env: Environment,
  calculatorHost?: CalculatorWorkerHost,
  log: (line: string) => void = () => undefined,
): Promise<RunningServe> {
  const [{ checkBind, listen }, { serverApp }, { allowedHostsFor }] = await loadOptional(
    'stageloop serve',
    optionalParts.server,
    () =>
      Promise.all([
        import('../src/server/listen.js'),
        import('../src/server/app.js'),
        import('../src/server/access.js'),
      ]),
  );
  checkBind(flags.host, flags.token);
  // Loaded only when asked for, as for `stageloop run --trace`: the same SDK set-up and the same environment.
  const tracing = flags.trace === undefined ? undefined : (await import('../otel.config.js')).startTracing(flags.trace);
  const services = await runServices(flags.store, env, calculatorHost, tracing?.instrument, flags.config);
  const app = serverApp({
    store: services.store,
    host: services.host,
    pipelines: services.pipelines,
    agents: services.agents,
    shownSlots: services.shownSlots,
    defaultPipeline: 'react',
    ...(flags.token !== undefined && { token: flags.token }),
    access: { allowedHosts: allowedHostsFor(flags.host, flags.allowHosts), allowedOrigins: flags.allowOrigins ?? [] },
    decide: services.decide,
    continueDeadRun: services.continueDeadRun,
    assemble: services.assemble,
    sessions: services.sessions,
  });
  let server: ListeningServer;
  try {
    server = await listen(app, {
      host: flags.host,
      port: flags.port,
      ...(flags.token !== undefined && { token: flags.token }),
    });
  } catch (error) {
    await services.close();
    await tracing?.finish();
    throw error;
  }
  const recovery =
    flags.recover === false
      ? undefined
      : (await import('../src/workers/recovery.js')).startRecovery({
          store: services.store,
          role: 'serve',
          resume: (run, recoveredBy) => services.recover(run, recoveredBy),
          log: (line) => log(`stageloop serve: ${line}`),
        });
  // Listening is said once the start's look is done: a dead run found then is this server's (or another's) already.
  await recovery?.started;
  return {
    ...server,
    notice: services.notice,
    async stop() {
      await recovery?.stop();
      await services.host.drain('the server is shutting down');
      await server.close();
      await services.close();
      await tracing?.finish();
    },
  };
}

/** A decision as the HTTP API takes it, as the run takes it: an edit approves the edited call. */
function decisionOf(decision: DecisionsBody['decisions'][number]): Decision {
  if (!decision.approve) return { approve: false, ...(decision.reason !== undefined && { message: decision.reason }) };
  return decision.arguments !== undefined
    ? { approve: true, arguments: decision.arguments as string | JsonObject }
    : { approve: true };
}
