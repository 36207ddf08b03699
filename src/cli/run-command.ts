// `stageloop run`: assembles a run, records it, shows progress, prints the answer and exits with a code that says how it ended.
import { performance } from 'node:perf_hooks';
import type { JsonObject } from '../common/json.js';
import type { RunResult } from '../engine/runner.js';
import type { Deps } from '../engine/stage.js';
import type { Environment } from '../model/config.js';
import type { RunStore } from '../store/types.js';
import type { CalculatorWorkerHost } from '../tools/calculator-host.js';
import type { GuardFlags, RunFlags } from './args.js';
import { buildPipeline, outputSchemaFrom, chooseModel, cliConfig, defaultTools, toolsWithMcp, withFallbacks, type ModelChoice } from './assemble.js';
import { exitCodeOf, humanSummary, jsonOutput, outputOf } from './output.js';
import { progressPrinter } from './progress.js';
import { eventLines } from './events-output.js';
import { openCliStore } from './store-location.js';
import { openSession, sessionDeps, withRemember } from './session-setup.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';
import { startCliTracing } from './tracing.js';

export interface CliStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** What a recorded CLI run keeps to be rebuilt on resume and replay: the pipeline's flags and the model's name, never a key. */
export interface CliRunSettings {
  pipeline: string;
  guards: GuardFlags;
  /** The run had the default guards (runs recorded before they existed have not: they are rebuilt without them). */
  guardDefaults?: boolean;
  offline: boolean;
  model?: string;
  baseUrl?: string;
  /** Approval (docs/approvals.md): tools whose calls wait for a person, and whether a spent budget asks. */
  approveTools?: string[] | 'all';
  askOnLimit?: boolean;
  /** --output-schema: the JSON Schema the final answer was made to match. */
  outputSchema?: JsonObject;
}

export function cliSettings(flags: RunFlags): CliRunSettings {
  const guards: GuardFlags = {};
  for (const key of ['maxTokens', 'maxCostUsd', 'timeoutSeconds', 'maxIterations', 'loopLimit', 'contextBudget', 'budgetMode', 'injection', 'noGuards'] as const) {
    if (flags[key] !== undefined) Object.assign(guards, { [key]: flags[key] });
  }
  const settings: CliRunSettings = { pipeline: flags.pipeline, guards, guardDefaults: true, offline: flags.offline };
  if (flags.model !== undefined) settings.model = flags.model;
  if (flags.baseUrl !== undefined) settings.baseUrl = flags.baseUrl;
  if (flags.approveTools !== undefined) settings.approveTools = flags.approveTools;
  if (flags.askOnLimit) settings.askOnLimit = true;
  return settings;
}

/** How the run is shown: the output flags of `run` (resume has the same ones). */
export interface ShowFlags {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  trace?: RunFlags['trace'];
  traceContent: boolean;
  /** --events: every event as a JSON line on stdout instead of the answer. */
  events?: boolean;
}

/** `calculatorHost`: the calculator's worker process, already started by the caller so it loads while this run is assembled. */
export async function runCommand(flags: RunFlags, env: Environment, streams: CliStreams, calculatorHost: CalculatorWorkerHost): Promise<number> {
  const config = await cliConfig(flags, env);
  const choice = await withFallbacks(await chooseModel(flags, env), flags.fallbackModels, config, env, flags.baseUrl);
  // A session: history and memory join the pipeline, remember the tools; its turns live in the store file.
  const opened = flags.session === undefined ? undefined : await openSession({ session: flags.session, ...(flags.user ? { user: flags.user } : {}) }, env, flags.store);
  const session = opened && { memory: { summarizer: choice.offline ? ('extractive' as const) : ('model' as const) } };
  const output = await outputSchemaFrom(flags.outputSchema);
  const built = buildPipeline(flags.pipeline, flags, choice.model.modelName, { ...session && { session }, ...output && { outputSchema: output.schema } });
  try {
    const baseTools = await toolsWithMcp(await defaultTools(env, calculatorHost), config);
    const tools = opened ? withRemember(baseTools) : baseTools;
    const settings = cliSettings(flags);
    if (output) settings.outputSchema = output.json;
    const pipeline = asksPerson(settings) ? (await import('./approvals.js')).withApprovals(built, settings, tools) : built;
    const recording = flags.noStore ? undefined : await openCliStore(flags.store, env);
    const { runPipeline } = await import('../durable/durable-run.js');
    const record = { cli: settings as unknown as JsonObject };
    const input = opened ? { task: flags.task, session: opened.scope.session, user: opened.scope.user } : { task: flags.task };
    return await attendedRun(flags, env, streams, { choice, tools, recording, settings }, (deps, signal) =>
      runPipeline(pipeline, input, { deps: opened ? sessionDeps(deps, opened, streams.stderr) : deps, signal, ...(recording ? { store: recording.store, record, hashEvery: 'stage' } : {}) }),
    );
  } finally {
    opened?.close();
    if (config !== undefined && config.mcpServers.length > 0) await (await import('../tools/mcp/index.js')).closeMcpServers();
  }
}

export interface RunParts {
  choice: ModelChoice;
  tools: Deps['tools'];
  recording: { store: RunStore; file: string } | undefined;
  /** The run's CLI settings, when a person may be asked (approvals, --ask-on-limit). */
  settings?: CliRunSettings;
}

/** True when the run may wait for a person: only then are the approval modules loaded. */
export function asksPerson(settings: CliRunSettings): boolean {
  return settings.approveTools !== undefined || settings.askOnLimit === true;
}

/** Runs with progress on stderr, Ctrl-C handling, tracing and the printed result; shared by run and resume. */
export async function attendedRun(flags: ShowFlags, env: Environment, streams: CliStreams, parts: RunParts, start: (deps: Partial<Deps>, signal: AbortSignal) => Promise<RunResult>): Promise<number> {
  const { choice, tools, recording } = parts;
  const chatty = !flags.json && !flags.quiet && !flags.events;
  if (chatty) streams.stderr.write(`${terminalSafe(choice.notice)}\n`);
  const tracing = flags.trace ? await startCliTracing(flags.trace, { traceContentFlag: flags.traceContent, env, stderr: streams.stderr }) : undefined;
  const deps: Partial<Deps> = tracing ? tracing.instrument({ model: choice.model, tools }) : { model: choice.model, tools };
  const color = 'isTTY' in streams.stderr && streams.stderr.isTTY === true && env.NO_COLOR === undefined;
  if (flags.events) deps.onEvent = eventLines(streams.stdout);
  else if (chatty) {
    const progress = progressPrinter(streams.stderr, { color });
    // Tracing's own listener (span events) keeps working beside the progress view.
    const traced = deps.onEvent;
    deps.onEvent = (event) => {
      traced?.(event);
      if (event.type === 'run_started' && recording) {
        streams.stderr.write(`run ${event.runId} (recorded in ${terminalSafe(recording.file)}; if it stops, continue it with: stageloop resume ${event.runId})\n`);
      }
      progress(event);
    };
  }
  const approvals = parts.settings !== undefined && asksPerson(parts.settings) ? await import('./approvals.js') : undefined;
  if (approvals && parts.settings) approvals.attachDeciders(deps, parts.settings, { input: process.stdin, output: streams.stderr });
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    streams.stderr.write('\ncancelling: finishing the run (press Ctrl-C again to quit at once)\n');
    controller.abort(new Error('cancelled with Ctrl-C'));
  };
  process.on('SIGINT', onInterrupt);
  const started = performance.now();
  let result: RunResult;
  try {
    result = await start(deps, controller.signal);
  } finally {
    process.off('SIGINT', onInterrupt);
    await recording?.store.close().catch(() => undefined);
  }
  const wallMs = performance.now() - started;
  if (tracing) await tracing.finish();
  printResult(result, flags, streams, wallMs);
  if (result.status === 'interrupted') streams.stderr.write(`${(await import('./approvals.js')).pausedNotice(result)}\n`);
  return exitCodeOf(result.status);
}

/** --json: one object, raw text JSON-escaped. Otherwise the answer on stdout, cleaned of control sequences; a failed quiet run prints none. */
export function printResult(result: RunResult, flags: ShowFlags, streams: CliStreams, wallMs: number): void {
  if (flags.json) {
    streams.stdout.write(`${terminalSafeJson(jsonOutput(result))}\n`);
    return;
  }
  // --events: the event lines were the output; run_finished carried the outcome.
  if (flags.events) return;
  const failedQuietly = flags.quiet && result.status === 'failed';
  // With --output-schema the validated JSON value is the output; the text answer stays in the summary.
  const output = outputOf(result);
  if (output !== undefined) streams.stdout.write(`${terminalSafe(JSON.stringify(output))}\n`);
  else if (result.answer !== null && !failedQuietly) streams.stdout.write(`${terminalSafe(result.answer)}\n`);
  if (!flags.quiet) streams.stderr.write(`\n${terminalSafe(humanSummary(result, wallMs))}\n`);
  if (result.error) {
    const cause = result.error.cause;
    streams.stderr.write(`stageloop: ${terminalSafe(result.error.message)}\n`);
    if (flags.verbose && cause instanceof Error && cause.stack) streams.stderr.write(`${terminalSafe(cause.stack)}\n`);
  }
}
