// `stageloop run`: assembles a run, shows progress, prints the answer and exits with a code that says how it ended.
import { performance } from 'node:perf_hooks';
import { runPipeline, type RunResult } from '../engine/runner.js';
import type { Deps } from '../engine/stage.js';
import type { Environment } from '../model/config.js';
import type { CalculatorWorkerHost } from '../tools/calculator-host.js';
import type { RunFlags } from './args.js';
import { buildPipeline, chooseModel, defaultTools, type ModelChoice } from './assemble.js';
import { openSession, sessionWarnings, withRemember, type OpenedSession } from './session-setup.js';
import { exitCodeOf, humanSummary, jsonOutput } from './output.js';
import { progressPrinter } from './progress.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';
import { startCliTracing } from './tracing.js';

export interface CliStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `calculatorHost`: the calculator's worker process, already started by the caller so it loads while this run is assembled. */
export async function runCommand(flags: RunFlags, env: Environment, streams: CliStreams, calculatorHost: CalculatorWorkerHost): Promise<number> {
  const choice = await chooseModel(flags, env);
  const opened = flags.session === undefined ? undefined : await openSession({ session: flags.session, ...(flags.user ? { user: flags.user } : {}) }, env);
  try {
    return await runAssembled(flags, env, streams, calculatorHost, choice, opened);
  } finally {
    opened?.close();
  }
}

async function runAssembled(flags: RunFlags, env: Environment, streams: CliStreams, calculatorHost: CalculatorWorkerHost, choice: ModelChoice, opened: OpenedSession | undefined): Promise<number> {
  const session = opened && { memory: { summarizer: choice.offline ? ('extractive' as const) : ('model' as const) } };
  const pipeline = buildPipeline(flags.pipeline, flags, choice.model.modelName, session && { session });
  const tools = opened ? withRemember(await defaultTools(env, calculatorHost)) : await defaultTools(env, calculatorHost);
  const chatty = !flags.json && !flags.quiet;
  if (chatty) streams.stderr.write(`${terminalSafe(choice.notice)}\n`);
  const tracing = flags.trace ? await startCliTracing(flags.trace, { traceContentFlag: flags.traceContent, env, stderr: streams.stderr }) : undefined;
  const deps: Partial<Deps> = tracing ? tracing.instrument({ model: choice.model, tools }) : { model: choice.model, tools };
  const color = 'isTTY' in streams.stderr && streams.stderr.isTTY === true && env.NO_COLOR === undefined;
  if (chatty) deps.onEvent = progressPrinter(streams.stderr, { color });
  if (opened) {
    deps.sessions = opened.sessions;
    deps.onEvent = sessionWarnings(streams.stderr, deps.onEvent);
  }

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
    if (opened) {
      const { runPipeline: runRecorded } = await import('../durable/durable-run.js');
      const input = { task: flags.task, session: opened.scope.session, user: opened.scope.user };
      result = await runRecorded(pipeline, input, { deps, signal: controller.signal, store: opened.runs });
    } else {
      result = await runPipeline(pipeline, { task: flags.task }, { deps, signal: controller.signal });
    }
  } finally {
    process.off('SIGINT', onInterrupt);
  }
  const wallMs = performance.now() - started;
  if (tracing) await tracing.finish();
  printResult(result, flags, streams, wallMs);
  return exitCodeOf(result.status);
}

/** --json: one object, raw text JSON-escaped. Otherwise the answer on stdout, cleaned of control sequences; a failed quiet run prints none. */
function printResult(result: RunResult, flags: RunFlags, streams: CliStreams, wallMs: number): void {
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
