// `stageloop serve`: the HTTP API and the web console over the CLI's store; runs started over HTTP are ordinary
// recorded runs (the built-in pipelines, the model from the environment), so `stageloop show/resume` work on them.
import { parseArgs } from 'node:util';
import type { JsonObject } from '../common/json.js';
import { zones } from '../engine/pipeline.js';
import type { Environment } from '../model/config.js';
import type { PipelineInfo } from '../server/app.js';
import type { RunRequestOptions, StartRunBody } from '../server/request-schemas.js';
import type { ListeningServer } from '../server/listen.js';
import type { CalculatorWorkerHost } from '../tools/calculator-host.js';
import { UsageError, type GuardFlags } from './args.js';
import { buildPipeline, chooseModel, defaultTools, pipelineNames } from './assemble.js';
import type { CliStreams, CliRunSettings } from './run-command.js';
import { openCliStore } from './store-location.js';

export const serveUsage = `Usage: stageloop serve [--port 8787] [--host 127.0.0.1] [--token T] [--store PATH]
Serves the HTTP API (/v1/...) and the web console (/) over the run store. Binds 127.0.0.1 unless --host is given;
any other address needs a token (--token or STAGELOOP_TOKEN), which every API request then sends as
Authorization: Bearer T. SIGTERM or Ctrl-C stops taking runs, lets running ones reach a checkpoint, and exits.`;

export interface ServeFlags {
  port: number;
  host: string;
  token?: string;
  store?: string;
}

export function parseServeFlags(argv: string[], env: Environment): ServeFlags | 'help' {
  let parsed;
  try {
    const options = { port: { type: 'string' }, host: { type: 'string' }, token: { type: 'string' }, store: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]!.replace(/\.$/, '')}: run "stageloop serve --help"`);
  }
  const { values } = parsed;
  if (values.help) return 'help';
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port must be a port number (0 to 65535), got "${values.port}"`);
  const token = values.token ?? (env.STAGELOOP_TOKEN?.trim() || undefined);
  if (token !== undefined && token.length < 8) throw new UsageError('--token must be at least 8 characters: a short token is easy to guess');
  return { port, host: values.host ?? '127.0.0.1', ...(token !== undefined && { token }), ...(values.store !== undefined && { store: values.store }) };
}

/** The API's run options as the guard flags `stageloop run` takes (text: applyGuards checks them). */
function guardsOf(options: RunRequestOptions | undefined): GuardFlags {
  const guards: GuardFlags = {};
  if (options?.maxIterations !== undefined) guards.maxIterations = String(options.maxIterations);
  if (options?.maxTokens !== undefined) guards.maxTokens = String(options.maxTokens);
  if (options?.maxCostUsd !== undefined) guards.maxCostUsd = String(options.maxCostUsd);
  if (options?.timeoutSeconds !== undefined) guards.timeoutSeconds = String(options.timeoutSeconds);
  return guards;
}

export interface RunningServe extends ListeningServer {
  notice: string;
  /** Stops taking runs, cancels running ones at their next checkpoint, waits for them, closes the server and the store. */
  stop(): Promise<void>;
}

export async function startServe(flags: ServeFlags, env: Environment, calculatorHost?: CalculatorWorkerHost): Promise<RunningServe> {
  const [{ checkBind, listen }, { serverApp }, { RunHost }, { runPipeline }] = await Promise.all([
    import('../server/listen.js'),
    import('../server/app.js'),
    import('../server/run-host.js'),
    import('../durable/durable-run.js'),
  ]);
  checkBind(flags.host, flags.token);
  const choice = await chooseModel({ offline: false }, env);
  const tools = await defaultTools(env, calculatorHost);
  const recording = await openCliStore(flags.store, env);
  const host = new RunHost((assembly, input, options) => runPipeline(assembly.pipeline, input, { ...options, store: recording.store, hashEvery: 'stage', ...(assembly.record && { record: assembly.record }) }));
  const pipelines: PipelineInfo[] = pipelineNames.map((name) => {
    const pipeline = buildPipeline(name, {});
    const [setup, iteration, finalize] = zones.map((zone) => pipeline[zone].map((stage) => stage.name)) as [string[], string[], string[]];
    return { name, maxIterations: pipeline.maxIterations, setup, iteration, finalize };
  });
  const app = serverApp({
    store: recording.store,
    host,
    pipelines,
    defaultPipeline: 'react',
    ...(flags.token !== undefined && { token: flags.token }),
    // An interrupted run (a CLI run with --approve-tools, say) continues in this process with the person's decisions.
    async decide(runId, decisions) {
      const [{ settingsOf }, { withApprovals }, { resumeRun }] = await Promise.all([import('./resume-command.js'), import('./approvals.js'), import('../durable/durable-run.js')]);
      const run = await recording.store.get(runId);
      if (run === undefined) return;
      const settings = settingsOf(run);
      const pipeline = withApprovals(buildPipeline(settings.pipeline, settings.guards, choice.model.modelName), settings, tools);
      const byId = Object.fromEntries(decisions.map((decision) => [decision.callId, decision.approve ? { approve: true as const } : { approve: false as const, ...(decision.reason !== undefined && { message: decision.reason }) }]));
      // Checked before the run is claimed: a bad decision is refused here, the run itself goes on in the background.
      const resumed = resumeRun(recording.store, runId, { pipeline, deps: { model: choice.model, tools }, decisions: byId });
      resumed.catch(() => undefined);
      await Promise.race([resumed, new Promise((resolve) => setTimeout(resolve, 50))]);
    },
    async assemble(body: StartRunBody & { pipeline: string }) {
      const guards = guardsOf(body.options);
      const settings: CliRunSettings = { pipeline: body.pipeline, guards, guardDefaults: true, offline: choice.offline };
      return { pipeline: buildPipeline(body.pipeline, guards, choice.model.modelName), deps: { model: choice.model, tools }, record: { cli: settings as unknown as JsonObject } };
    },
  });
  let server: ListeningServer;
  try {
    server = await listen(app, { host: flags.host, port: flags.port, ...(flags.token !== undefined && { token: flags.token }) });
  } catch (error) {
    await recording.store.close().catch(() => undefined);
    throw error;
  }
  return {
    ...server,
    notice: `${choice.notice}; runs recorded in ${recording.file}`,
    async stop() {
      await host.drain('the server is shutting down');
      await server.close();
      await recording.store.close().catch(() => undefined);
    },
  };
}

/** Runs until SIGTERM or SIGINT, then drains; resolves with the exit code. */
export async function serveCommand(argv: string[], env: Environment, streams: CliStreams, calculatorHost?: CalculatorWorkerHost): Promise<number> {
  const flags = parseServeFlags(argv, env);
  if (flags === 'help') return void streams.stdout.write(`${serveUsage}\n`), 0;
  const running = await startServe(flags, env, calculatorHost);
  streams.stderr.write(`${running.notice}\n`);
  streams.stdout.write(`stageloop serve: listening on ${running.url} (console at ${running.url}/)${flags.token ? ', token required' : ''}\n`);
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      streams.stderr.write(`stageloop serve: ${signal}: taking no new runs, letting running ones reach a checkpoint\n`);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  await running.stop();
  streams.stderr.write('stageloop serve: stopped\n');
  return 0;
}
