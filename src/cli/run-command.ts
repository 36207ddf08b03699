// `stageloop run`: assembles a run, shows progress, prints the answer and exits with a code that says how it ended.
import { performance } from 'node:perf_hooks';
import { runPipeline, type RunResult } from '../engine/runner.js';
import type { Deps } from '../engine/stage.js';
import type { Environment } from '../model/config.js';
import type { CalculatorWorkerHost } from '../tools/calculator-host.js';
import type { RunFlags } from './args.js';
import { buildPipeline, chooseModel, defaultTools } from './assemble.js';
import { exitCodeOf, humanSummary, jsonOutput } from './output.js';
import { progressPrinter } from './progress.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';
import { startCliTracing } from './tracing.js';
import type { Pipeline } from '../engine/pipeline.js';
import type { CliRunSettings } from './approvals.js';

export interface CliStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `calculatorHost`: the calculator's worker process, already started by the caller so it loads while this run is assembled. */
export async function runCommand(flags: RunFlags, env: Environment, streams: CliStreams, calculatorHost: CalculatorWorkerHost): Promise<number> {
  const choice = await chooseModel(flags, env);
  const tools = await defaultTools(env, calculatorHost);
  const approvals = flags.approveTools !== undefined || flags.askOnLimit ? await import('./approvals.js') : undefined;
  const settings = approvals && runSettings(flags);
  const pipeline = approvals && settings ? approvals.withApprovals(buildPipeline(flags.pipeline, flags, choice.model.modelName), settings, tools) : buildPipeline(flags.pipeline, flags, choice.model.modelName);
  const chatty = !flags.json && !flags.quiet;
  if (chatty) streams.stderr.write(`${terminalSafe(choice.notice)}\n`);
  const tracing = flags.trace ? await startCliTracing(flags.trace, { traceContentFlag: flags.traceContent, env, stderr: streams.stderr }) : undefined;
  const deps: Partial<Deps> = tracing ? tracing.instrument({ model: choice.model, tools }) : { model: choice.model, tools };
  const color = 'isTTY' in streams.stderr && streams.stderr.isTTY === true && env.NO_COLOR === undefined;
  if (chatty) {
    // Tracing's own listener (span events) keeps working beside the progress view.
    const traced = deps.onEvent;
    const printer = progressPrinter(streams.stderr, { color });
    deps.onEvent = traced === undefined ? printer : (event) => (traced(event), printer(event));
  }
  if (approvals && settings) approvals.attachDeciders(deps, settings, { input: process.stdin, output: streams.stderr });

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
    result = settings === undefined ? await runPipeline(pipeline, { task: flags.task }, { deps, signal: controller.signal }) : await recordedRun(pipeline, flags, settings, deps, controller.signal, env);
  } finally {
    process.off('SIGINT', onInterrupt);
  }
  const wallMs = performance.now() - started;
  if (tracing) await tracing.finish();
  printResult(result, flags, streams, wallMs);
  if (result.status === 'interrupted' && approvals) streams.stderr.write(`${approvals.pausedNotice(result)}\n`);
  return exitCodeOf(result.status);
}

/** A run that may pause is recorded, so `stageloop approve` can continue it in another process. */
async function recordedRun(pipeline: Pipeline, flags: RunFlags, settings: CliRunSettings, deps: Partial<Deps>, signal: AbortSignal, env: Environment): Promise<RunResult> {
  const [{ runPipeline: runRecorded }, { openStore }, { settingsRecord }] = await Promise.all([import('../durable/durable-run.js'), import('../store/location.js'), import('./approvals.js')]);
  const store = openStore({ ...(flags.store === undefined ? {} : { path: flags.store }), env });
  try {
    return await runRecorded(pipeline, { task: flags.task }, { store, deps, signal, record: settingsRecord(settings) });
  } finally {
    await store.close();
  }
}

function runSettings(flags: RunFlags): CliRunSettings {
  const { maxTokens, maxCostUsd, timeoutSeconds, maxIterations, injection, loopLimit, contextBudget, budgetMode } = flags;
  const guards = Object.fromEntries(Object.entries({ maxTokens, maxCostUsd, timeoutSeconds, maxIterations, injection, loopLimit, contextBudget, budgetMode }).filter(([, value]) => value !== undefined));
  const settings: CliRunSettings = { pipeline: flags.pipeline, guards, askOnLimit: flags.askOnLimit, offline: flags.offline };
  if (flags.approveTools !== undefined) settings.approveTools = flags.approveTools;
  if (flags.model !== undefined) settings.model = flags.model;
  if (flags.baseUrl !== undefined) settings.baseUrl = flags.baseUrl;
  return settings;
}

/** --json: one object, raw text JSON-escaped. Otherwise the answer on stdout, cleaned of control sequences; a failed quiet run prints none. */
export function printResult(result: RunResult, flags: RunFlags, streams: CliStreams, wallMs: number): void {
  if (flags.json) {
    streams.stdout.write(`${terminalSafeJson(jsonOutput(result))}\n`);
    return;
  }
  const failedQuietly = flags.quiet && result.status === 'failed';
  if (result.answer !== null && !failedQuietly) streams.stdout.write(`${terminalSafe(result.answer)}\n`);
  if (!flags.quiet) streams.stderr.write(`\n${terminalSafe(humanSummary(result, wallMs))}\n`);
  if (result.error) {
    const cause = result.error.cause;
    streams.stderr.write(`stageloop: ${terminalSafe(result.error.message)}\n`);
    if (flags.verbose && cause instanceof Error && cause.stack) streams.stderr.write(`${terminalSafe(cause.stack)}\n`);
  }
}
