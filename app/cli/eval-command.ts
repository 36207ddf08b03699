// `stageloop eval DATASET [--variant NAME=PIPELINE[:FLAGS]]...`: runs a dataset on variants, prints the table,
// writes --json / --html, gates on --baseline; --resume runs what an interrupted eval left, --replay grades again.
import { dirname, join } from 'node:path';
import type { JsonObject } from '../../src/common/json.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { EvalResult } from '../../src/eval/types.js';
import type { Environment } from '../../src/model/config.js';
import { recordedGuards } from '../recipe.js';
import { textReport, writeReport } from './eval-output.js';
import {
  chosenVariants,
  graderTimeLimitOf,
  judgeModelOf,
  parseEvalArgs,
  thresholdOf,
  wholeNumber,
  type EvalValues,
} from './eval-flags.js';
import { attendedEval, replayEval } from './eval-runs.js';
import { variantRun, type VariantContext, type VariantRun, type VariantSpec } from './eval-variants.js';
import type { CliStreams, CommandIo, CommandModule } from './command.js';
import { startCliTracing, traceModeOf, type CliTracing } from './tracing.js';
import type { CaseRun } from '../../src/eval/types.js';
import { openRunStore } from '../store.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';

export const evalUsage = `Usage: stageloop eval DATASET [--variant NAME=PIPELINE[:FLAGS]]... [options]
Runs every case of DATASET (a .jsonl file, a .js/.ts module, or builtin:arithmetic) on each variant, grades each
run, and prints per variant: pass rate, mean score, tokens, cost, latency p50/p95, stop reasons (docs/eval.md).

Variants (none given: the config file's "evalVariants", else the react pipeline as "default"):
  --variant NAME=PIPELINE[:FLAGS]  e.g. --variant react=react --variant tight=react:"--max-tokens 500 --no-tools";
                           FLAGS: run's guard flags, --model, --base-url, --offline, --tools A,B, --no-tools,
                           --instructions TEXT. A bare --variant NAME picks that variant of the config file
  --config FILE            the config file with "evalVariants" (default stageloop.config.json in this folder)
  --model, -m NAME / --base-url URL / --offline   the model of every variant that names none
  --judge-model NAME       the model of "judge" graders (default: the first variant's server model)

Running:
  --repeats N              runs per case and variant (default 1); a case passes when every repeat passed
  --concurrency N          runs at once (default 4)
  --grader-timeout S       seconds one grader may take on one run (default 60); past it the grade fails naming it
  --store PATH             where runs are recorded (default $STAGELOOP_HOME/stageloop.db): "stageloop runs" lists them
  --resume EVAL            run what an interrupted eval (Ctrl-C) left, keeping its finished cases
  --replay EVAL            grade an eval's recorded runs again with the dataset's graders now: no model call

Reports and the gate:
  --json                   one JSON object on stdout: results (id, variant, pass per case and variant) and summary
  --html FILE              a self-contained report page (summary, charts, each case's runs)
  --baseline FILE          an earlier --json result: a case that passed there and fails now is a regression
  --threshold N            with --baseline: fail only when a variant's pass rate or mean score falls by more than N
                           (0 to 1; default 0: any regressed case fails)
  --quiet, -q              no progress lines
  --trace otlp|console     trace every run as "stageloop run --trace" does, and each run's grades as
                           gen_ai.evaluation.result events in that run's trace

Exit codes: 0 every case passed (with --baseline: no regression), 1 a failure or a regression, 2 usage,
130 interrupted (finished cases kept: continue with --resume EVAL).`;

/** Evals are kept beside the store file they record into. */
function evalsFolder(file: string, env: Environment): string {
  if (/^rediss?:\/\//.test(file)) return join(env.STAGELOOP_HOME?.trim() || '.stageloop', 'evals');
  return join(dirname(file), 'evals');
}

/** `eval` is a reserved word, hence the entry's name. */
export const evaluate: CommandModule = { usage: () => evalUsage, run: evalCommand };

export async function evalCommand(argv: readonly string[], io: CommandIo): Promise<number | 'help'> {
  const { values, positionals } = parseEvalArgs(argv);
  if (values.help) return 'help';
  const { env, ...streams } = io;
  // A StageloopError goes up to main, which prints it in one line with its exit code.
  return runEval(values, positionals, env, streams);
}

async function runEval(
  values: EvalValues,
  positionals: string[],
  env: Environment,
  streams: CliStreams,
): Promise<number> {
  if (positionals.length > 1)
    throw new StageloopError('usage', `stageloop eval takes one dataset, got also "${positionals[1]}"`);
  const continued = values.resume ?? values.replay;
  if (values.resume !== undefined && values.replay !== undefined)
    throw new StageloopError(
      'usage',
      '--resume and --replay cannot be combined: --resume runs what is left, --replay grades what ran',
    );
  if (continued !== undefined && values.variant !== undefined)
    throw new StageloopError(
      'usage',
      `--${values.resume ? 'resume' : 'replay'} uses the variants of eval ${continued}: drop --variant`,
    );
  if (continued === undefined && positionals.length === 0)
    throw new StageloopError(
      'usage',
      'stageloop eval needs a dataset: stageloop eval builtin:arithmetic (or a .jsonl file, see docs/eval.md)',
    );
  const threshold = thresholdOf(values.threshold);
  if (values.threshold !== undefined && values.baseline === undefined)
    throw new StageloopError('usage', '--threshold needs --baseline FILE: it is the drop allowed against the baseline');
  const concurrency = wholeNumber(values.concurrency, '--concurrency', 4);
  const graderTimeLimitMs = graderTimeLimitOf(values['grader-timeout']);
  const traceMode = values.trace === undefined ? undefined : traceModeOf(values.trace);
  const recording = await openRunStore(values.store, env);
  const { CalculatorWorkerHost, defaultCalculatorLimits } = await import('../../src/tools/calculator-host.js');
  const calculatorHost = new CalculatorWorkerHost(defaultCalculatorLimits);
  calculatorHost.warm().catch(() => {}); // loads mathjs while the dataset and variants are read; a failure shows on use
  let variants: VariantRun[] = [];
  let tracing: CliTracing | undefined;
  try {
    if (traceMode !== undefined)
      tracing = await startCliTracing(traceMode, { traceContentFlag: false, env, stderr: streams.stderr });
    const context: VariantContext = {
      env,
      calculatorHost,
      ...(values.replay !== undefined && { replay: true }),
      defaults: {
        offline: values.offline ?? false,
        ...(values.model !== undefined && { model: values.model }),
        ...(values['base-url'] !== undefined && { baseUrl: values['base-url'] }),
      },
    };
    const { loadDataset } = await import('../../src/eval/dataset.js');
    const { openDataset } = await import('../../src/eval/case-stream.js');
    const { createLedger, readLedger, checkResumedDataset, checkResumedCases } =
      await import('../../src/eval/ledger.js');
    const folder = evalsFolder(recording.file, env);
    const ledger = continued === undefined ? undefined : readLedger(folder, continued);
    if (ledger && values.resume !== undefined && positionals[0] !== undefined)
      checkResumedDataset(ledger.header, positionals[0], process.cwd());
    const source = positionals[0] ?? ledger!.header.dataset;
    const sourceCwd = positionals[0] !== undefined ? process.cwd() : ledger!.header.cwd;
    // Streamed: every case checked now, then read again one at a time as its runs start (a large file is never held).
    const dataset = await openDataset(source, sourceCwd);
    if (ledger && values.resume !== undefined) checkResumedCases(ledger, new Set(dataset.ids), dataset.name);
    const specs = ledger
      ? (ledger.header.variants as unknown as VariantSpec[]).map((spec) => ({
          ...spec,
          guards: recordedGuards(spec.guards) ?? {},
        }))
      : chosenVariants(values);
    const repeats = ledger ? ledger.header.repeats : wholeNumber(values.repeats, '--repeats', 1);
    variants = await Promise.all(specs.map((spec) => variantRun(spec, context)));
    // Traced: every run of every variant, and each graded run's verdicts as records in its trace.
    const traced = tracing;
    const graded = traced === undefined ? undefined : (run: CaseRun) => traced.recordEvaluation(run);
    if (traced !== undefined)
      variants = variants.map((variant) =>
        variant.deps ? { ...variant, deps: traced.instrument(variant.deps) } : variant,
      );
    const judgeModel =
      values.replay !== undefined && values['judge-model'] === undefined
        ? undefined
        : await judgeModelOf(values, context, specs);
    const baseline =
      values.baseline === undefined
        ? undefined
        : (await import('../../src/eval/baseline.js')).readBaseline(values.baseline);
    const chatty = !values.quiet;
    let result: EvalResult;
    let interrupted = false;
    if (values.replay !== undefined) {
      result = await replayEval(
        ledger!,
        await loadDataset(source, sourceCwd),
        variants,
        recording.store,
        repeats,
        judgeModel,
      );
      for (const entry of result.results) entry.runs.forEach((run) => graded?.(run));
      if (chatty)
        streams.stderr.write(
          `eval ${ledger!.header.evalId}: graded ${ledger!.runs.length} recorded runs again (no model call)\n`,
        );
    } else {
      const evalId = ledger?.header.evalId ?? (await import('../../src/eval/evaluate.js')).newEvalId();
      // A new eval's ledger is written with its first finished run (or at an interrupt): a mistake found first leaves none.
      let file = ledger?.file;
      const ledgerFile = () =>
        (file ??= createLedger(folder, {
          evalId,
          dataset: positionals[0]!,
          cwd: process.cwd(),
          variants: specs as unknown as JsonObject[],
          repeats,
          createdAt: new Date().toISOString(),
        }));
      const total = dataset.ids.length * variants.length * repeats;
      if (chatty) {
        const notices = [...new Set(variants.map((variant) => variant.notice))];
        streams.stderr.write(
          `${terminalSafe(notices.join('; '))}\neval ${evalId}: ${dataset.ids.length} cases × ${variants.length} variant${variants.length > 1 ? 's' : ''}${repeats > 1 ? ` × ${repeats} repeats` : ''} = ${total} runs${ledger ? ` (${ledger.runs.length} finished before)` : ''}, recorded in ${terminalSafe(recording.file)} ("stageloop runs" lists them)\n`,
        );
      }
      const outcome = await attendedEval(streams, chatty, ledgerFile, (signal, onRun) =>
        import('../../src/eval/evaluate.js').then(({ evaluate }) =>
          evaluate({
            dataset,
            variants,
            concurrency,
            repeats,
            store: recording.store,
            evalId,
            signal,
            onRun: graded === undefined ? onRun : (run, progress) => (graded(run), onRun(run, progress)),
            ...(judgeModel && { judgeModel }),
            ...(graderTimeLimitMs !== undefined && { graderTimeLimitMs }),
            ...(ledger && { finished: ledger.runs }),
          }),
        ),
      );
      result = outcome.result;
      interrupted = outcome.interrupted;
    }
    const comparison =
      baseline === undefined
        ? undefined
        : (await import('../../src/eval/baseline.js')).compareWithBaseline(
            baseline,
            result,
            values.baseline!,
            threshold,
          );
    if (values.html !== undefined) await writeReport(values.html, result, comparison, recording.store);
    if (values.json)
      streams.stdout.write(`${terminalSafeJson({ ...result, ...(comparison && { baseline: comparison }) })}\n`);
    else streams.stdout.write(`${textReport(result, comparison)}\n`);
    if (values.html !== undefined && chatty) streams.stderr.write(`report written to ${terminalSafe(values.html)}\n`);
    if (interrupted) {
      const left =
        dataset.ids.length * variants.length * repeats -
        result.results.reduce((count, entry) => count + entry.runs.length, 0);
      streams.stderr.write(
        `interrupted: finished runs are kept; ${left} left: run them with stageloop eval --resume ${result.evalId}\n`,
      );
      return 130;
    }
    if (comparison) return comparison.failed ? 1 : 0;
    return result.complete && result.results.every((entry) => entry.pass) ? 0 : 1;
  } finally {
    await Promise.all(variants.map((variant) => variant.close().catch(() => undefined)));
    await tracing?.finish();
    await calculatorHost.close();
    await recording.store.close().catch(() => undefined);
  }
}
