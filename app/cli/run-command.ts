// `stageloop run`: assembles a run, records it, shows progress, prints the answer and exits with a code that says how it ended.
import { performance } from 'node:perf_hooks';
import type { Pipeline } from '../../src/engine/pipeline.js';
import type { RunResult } from '../../src/engine/runner.js';
import type { Deps } from '../../src/engine/stage.js';
import type { Environment } from '../../src/model/config.js';
import type { RunStore } from '../../src/store/types.js';
import type { CalculatorWorkerHost } from '../../src/tools/calculator-host.js';
import type { RunFlags } from './args.js';
import type { CliStreams, CommandIo } from './command.js';
import type { AssembledRun } from '../assemble.js';
import { runInputOf, type RunRecipe } from '../recipe.js';
import { recipeFromFlags } from './recipe-flags.js';
import { flagOf } from './guard-flags.js';
import { exitCodeOf, humanSummary, jsonOutput, printedOutputOf } from './output.js';
import { progressPrinter } from './progress.js';
import { eventLines } from './events-output.js';
import { openRunStore } from '../store.js';
import { sessionWarnings } from './session-setup.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';
import { startCliTracing } from './tracing.js';
import { invokedName } from './command-name.js';

export type { CliStreams } from './command.js';

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
export async function runCommand(
  flags: RunFlags,
  io: CommandIo,
  calculatorHost: CalculatorWorkerHost,
): Promise<number> {
  const given = await recipeFromFlags(flags, io.env, io.cwd);
  const { assemble } = await import('../assemble.js');
  const run = await assemble(given.recipe, given.env, {
    calculatorHost,
    settingName: flagOf,
    ...(flags.store !== undefined && { sessionFile: flags.store }),
  });
  try {
    const recording = flags.noStore
      ? undefined
      : await openRunStore(flags.store, io.env, {
          optional: true,
          unrecorded: (line: string) => io.stderr.write(`${line}\n`),
        });
    const { runPipeline } = await import('../../src/durable/durable-run.js');
    const input = runInputOf(flags.task, given.recipe);
    return await attendedRun(flags, io, { run, recipe: given.recipe, recording }, (deps, signal) =>
      runPipeline(run.pipeline, input, {
        deps,
        signal,
        ...(recording ? { store: recording.store, record: run.record, hashEvery: 'stage' } : {}),
      }),
    );
  } finally {
    await run.close();
  }
}

export interface RunParts {
  run: AssembledRun;
  recipe: RunRecipe;
  recording: { store: RunStore; file: string } | undefined;
  /** False when the decisions are given already (approve, reject): no terminal prompt. */
  attach?: boolean;
}

/** True when the run may wait for a person: only then are the approval modules loaded. A pipeline with an approval stage the taint policy added counts. */
export function asksPerson(recipe: RunRecipe, pipeline?: Pipeline): boolean {
  return (
    recipe.approvals.tools !== undefined ||
    recipe.approvals.askOnLimit ||
    (pipeline !== undefined && pipeline.iteration.some((stage) => stage.name === 'approval'))
  );
}

/** Runs with progress on stderr, Ctrl-C handling, tracing and the printed result; shared by run and resume. */
export async function attendedRun(
  flags: ShowFlags,
  io: CommandIo,
  parts: RunParts,
  start: (deps: Partial<Deps>, signal: AbortSignal) => Promise<RunResult>,
): Promise<number> {
  const { run, recording, recipe } = parts;
  const { env, stdin, ...streams } = io;
  const chatty = !flags.json && !flags.quiet && !flags.events;
  if (chatty) streams.stderr.write(`${terminalSafe(run.notice)}\n`);
  const tracing = flags.trace
    ? await startCliTracing(flags.trace, { traceContentFlag: flags.traceContent, env, stderr: streams.stderr })
    : undefined;
  const deps: Partial<Deps> = tracing
    ? { ...run.deps, ...tracing.instrument({ model: run.deps.model, tools: run.deps.tools }) }
    : { ...run.deps };
  const color = 'isTTY' in streams.stderr && streams.stderr.isTTY === true && env.NO_COLOR === undefined;
  if (flags.events) deps.onEvent = eventLines(streams.stdout);
  else if (chatty) {
    const progress = progressPrinter(streams.stderr, { color });
    // Tracing's own listener (span events) keeps working beside the progress view.
    const traced = deps.onEvent;
    deps.onEvent = (event) => {
      traced?.(event);
      if (event.type === 'run_started' && recording) {
        streams.stderr.write(
          `run ${event.runId} (recorded in ${terminalSafe(recording.file)}; if it stops, continue it with: ${invokedName()} resume ${event.runId})\n`,
        );
      }
      progress(event);
    };
  }
  // Unreadable history rows are warned about even when progress is not shown.
  if (run.deps.sessions !== undefined) deps.onEvent = sessionWarnings(streams.stderr, deps.onEvent);
  if (parts.attach !== false && asksPerson(recipe, run.pipeline))
    (await import('./approvals.js')).attachDeciders(deps, recipe, { input: stdin, output: streams.stderr });
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
  if (result.status === 'interrupted')
    streams.stderr.write(`${(await import('./approvals.js')).pausedNotice(result)}\n`);
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
  const output = printedOutputOf(result);
  if (output !== undefined) streams.stdout.write(`${terminalSafe(JSON.stringify(output))}\n`);
  else if (result.answer !== null && !failedQuietly) streams.stdout.write(`${terminalSafe(result.answer)}\n`);
  if (!flags.quiet) streams.stderr.write(`\n${terminalSafe(humanSummary(result, wallMs))}\n`);
  if (result.error) {
    const cause = result.error.cause;
    streams.stderr.write(`stageloop: ${terminalSafe(result.error.message)}\n`);
    if (flags.verbose && cause instanceof Error && cause.stack) streams.stderr.write(`${terminalSafe(cause.stack)}\n`);
  }
}
