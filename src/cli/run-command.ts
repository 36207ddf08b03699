// `stageloop run`: assembles a run, shows progress, prints the answer and exits with a code that says how it ended.
import { performance } from 'node:perf_hooks';
import { runPipeline, type RunResult } from '../engine/runner.js';
import type { Deps } from '../engine/stage.js';
import type { Environment } from '../model/config.js';
import { traceContentFromEnv } from '../tracing/instrument.js';
import type { RunFlags } from './args.js';
import { buildPipeline, chooseModel, defaultTools } from './assemble.js';
import { exitCodeOf, humanSummary, jsonOutput } from './output.js';
import { progressPrinter } from './progress.js';
import { startCliTracing } from './tracing.js';

export interface CliStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export async function runCommand(flags: RunFlags, env: Environment, streams: CliStreams): Promise<number> {
  const choice = chooseModel(flags, env);
  const pipeline = buildPipeline(flags.pipeline, flags, choice.model.modelName);
  const tools = defaultTools(env);
  const chatty = !flags.json && !flags.quiet;
  if (chatty) streams.stderr.write(`${choice.notice}\n`);
  const tracing = flags.trace ? await startCliTracing(flags.trace, { recordContent: flags.traceContent || traceContentFromEnv(env), stderr: streams.stderr }) : undefined;
  const deps: Partial<Deps> = tracing ? tracing.instrument({ model: choice.model, tools }) : { model: choice.model, tools };
  if (chatty) deps.onEvent = progressPrinter(streams.stderr, { color: 'isTTY' in streams.stderr && streams.stderr.isTTY === true });

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

  if (flags.json) {
    streams.stdout.write(`${JSON.stringify(jsonOutput(result))}\n`);
  } else {
    if (result.answer !== null) streams.stdout.write(`${result.answer}\n`);
    if (chatty) streams.stderr.write(`\n${humanSummary(result, wallMs)}\n`);
  }
  if (result.error && !flags.json) {
    const cause = result.error.cause;
    streams.stderr.write(`stageloop: ${result.error.message}\n`);
    if (flags.verbose && cause instanceof Error && cause.stack) streams.stderr.write(`${cause.stack}\n`);
  }
  return exitCodeOf(result.status);
}
