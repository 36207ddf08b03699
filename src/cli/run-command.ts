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
import { eventLines } from './events-output.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';
import { startCliTracing } from './tracing.js';

export interface CliStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `calculatorHost`: the calculator's worker process, already started by the caller so it loads while this run is assembled. */
export async function runCommand(flags: RunFlags, env: Environment, streams: CliStreams, calculatorHost: CalculatorWorkerHost): Promise<number> {
  const choice = await chooseModel(flags, env);
  const pipeline = buildPipeline(flags.pipeline, flags, choice.model.modelName);
  const tools = await defaultTools(env, calculatorHost);
  const chatty = !flags.json && !flags.quiet && !flags.events;
  if (chatty) streams.stderr.write(`${terminalSafe(choice.notice)}\n`);
  const tracing = flags.trace ? await startCliTracing(flags.trace, { traceContentFlag: flags.traceContent, env, stderr: streams.stderr }) : undefined;
  const deps: Partial<Deps> = tracing ? tracing.instrument({ model: choice.model, tools }) : { model: choice.model, tools };
  const color = 'isTTY' in streams.stderr && streams.stderr.isTTY === true && env.NO_COLOR === undefined;
  if (flags.events) deps.onEvent = eventLines(streams.stdout);
  else if (chatty) deps.onEvent = progressPrinter(streams.stderr, { color });

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
    result = await runPipeline(pipeline, { task: flags.task }, { deps, signal: controller.signal });
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
  // --events: the event lines were the output; run_finished carried the outcome.
  if (flags.events) return;
  const failedQuietly = flags.quiet && result.status === 'failed';
  if (result.answer !== null && !failedQuietly) streams.stdout.write(`${terminalSafe(result.answer)}\n`);
  if (!flags.quiet) streams.stderr.write(`\n${terminalSafe(humanSummary(result, wallMs))}\n`);
  if (result.error) {
    const cause = result.error.cause;
    streams.stderr.write(`stageloop: ${terminalSafe(result.error.message)}\n`);
    if (flags.verbose && cause instanceof Error && cause.stack) streams.stderr.write(`${terminalSafe(cause.stack)}\n`);
  }
}
