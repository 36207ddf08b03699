// `stageloop eval DATASET [--variant NAME=PIPELINE[:FLAGS]]...`: runs a dataset on variants, prints the table,
// writes --json / --html, gates on --baseline; --resume runs what an interrupted eval left, --replay grades again.
import { dirname, join } from 'node:path';
import type { JsonObject } from '../../src/common/json.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { EvalResult } from '../../src/eval/types.js';
import type { Environment } from '../../src/model/config.js';
import type { ChatModel } from '../../src/model/types.js';
import type { RunStore } from '../../src/store/types.js';
import { parseFlags } from './args.js';
import { chooseModel } from '../providers.js';
import { recordedGuards } from '../recipe.js';
import { progressBar, progressLine, textReport } from './eval-output.js';
import {
  configVariants,
  parseVariantFlag,
  variantRun,
  type VariantContext,
  type VariantRun,
  type VariantSpec,
} from './eval-variants.js';
import type { CliStreams, CommandIo, CommandModule } from './command.js';
import { openRunStore } from '../store.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';
import { shownSlots } from '../shown-slots.js';

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

Exit codes: 0 every case passed (with --baseline: no regression), 1 a failure or a regression, 2 usage,
130 interrupted (finished cases kept: continue with --resume EVAL).`;

const options = {
  variant: { type: 'string', multiple: true },
  config: { type: 'string' },
  model: { type: 'string', short: 'm' },
  'base-url': { type: 'string' },
  offline: { type: 'boolean' },
  'judge-model': { type: 'string' },
  repeats: { type: 'string' },
  concurrency: { type: 'string' },
  store: { type: 'string' },
  resume: { type: 'string' },
  replay: { type: 'string' },
  json: { type: 'boolean' },
  html: { type: 'string' },
  baseline: { type: 'string' },
  threshold: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseEvalArgs>['values'];

function parseEvalArgs(argv: readonly string[]) {
  return parseFlags('eval', argv, options);
}

function wholeNumber(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new StageloopError('usage', `${flag} must be a whole number >= 1, got "${value}"`);
  return number;
}

function thresholdOf(value: string | undefined): number {
  if (value === undefined) return 0;
  const number = Number(value);
  if (!(number >= 0 && number <= 1))
    throw new StageloopError(
      'usage',
      `--threshold must be a number from 0 to 1 (a drop in pass rate or score), got "${value}"`,
    );
  return number;
}

/** The variants asked for: --variant flags (a bare name picks a config variant), else the config's, else "default". */
export function chosenVariants(values: Values): VariantSpec[] {
  const fromConfig = configVariants(values.config);
  const flags = values.variant ?? [];
  if (flags.length === 0)
    return fromConfig.length > 0 ? fromConfig : [{ name: 'default', pipeline: 'react', guards: {} }];
  const specs = flags.map((flag) => {
    const parsed = parseVariantFlag(flag);
    if (typeof parsed !== 'string') return parsed;
    const found = fromConfig.find((spec) => spec.name === parsed);
    if (found === undefined)
      throw new StageloopError(
        'usage',
        `--variant ${parsed}: no variant "${parsed}" in the config file's "evalVariants"${fromConfig.length ? ` (it has ${fromConfig.map((spec) => spec.name).join(', ')})` : ''}: write --variant ${parsed}=PIPELINE[:FLAGS]`,
      );
    return found;
  });
  const twice = specs.find((spec, index) => specs.findIndex((other) => other.name === spec.name) !== index);
  if (twice !== undefined)
    throw new StageloopError('usage', `variant "${twice.name}" is given twice: give each --variant its own name`);
  return specs;
}

async function judgeModelOf(
  values: Values,
  context: VariantContext,
  specs: VariantSpec[],
): Promise<ChatModel | undefined> {
  const name = values['judge-model'];
  if (name === undefined) {
    const server = specs.find((spec) => !(spec.offline ?? context.defaults.offline));
    if (server === undefined) return undefined;
    const choice = await chooseModel(
      {
        ...((server.model ?? context.defaults.model) ? { name: (server.model ?? context.defaults.model)! } : {}),
        ...((server.baseUrl ?? context.defaults.baseUrl)
          ? { baseUrl: (server.baseUrl ?? context.defaults.baseUrl)! }
          : {}),
      },
      context.env,
    );
    return choice.offline ? undefined : choice.model;
  }
  const baseUrl = context.defaults.baseUrl;
  const choice = await chooseModel({ name, ...(baseUrl !== undefined && { baseUrl }) }, context.env).catch(() => {
    throw new StageloopError(
      'usage',
      `--judge-model ${name} needs a model server: set OPENAI_API_KEY or OPENAI_BASE_URL, or pass --base-url`,
    );
  });
  return choice.model;
}

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

async function runEval(values: Values, positionals: string[], env: Environment, streams: CliStreams): Promise<number> {
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
  const recording = await openRunStore(values.store, env);
  const { CalculatorWorkerHost, defaultCalculatorLimits } = await import('../../src/tools/calculator-host.js');
  const calculatorHost = new CalculatorWorkerHost(defaultCalculatorLimits);
  calculatorHost.warm().catch(() => {}); // loads mathjs while the dataset and variants are read; a failure shows on use
  let variants: VariantRun[] = [];
  try {
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
    const { createLedger, readLedger } = await import('../../src/eval/ledger.js');
    const folder = evalsFolder(recording.file, env);
    const ledger = continued === undefined ? undefined : readLedger(folder, continued);
    const dataset = await loadDataset(
      positionals[0] ?? ledger!.header.dataset,
      positionals[0] !== undefined ? process.cwd() : ledger!.header.cwd,
    );
    const specs = ledger
      ? (ledger.header.variants as unknown as VariantSpec[]).map((spec) => ({
          ...spec,
          guards: recordedGuards(spec.guards) ?? {},
        }))
      : chosenVariants(values);
    const repeats = ledger ? ledger.header.repeats : wholeNumber(values.repeats, '--repeats', 1);
    variants = await Promise.all(specs.map((spec) => variantRun(spec, context)));
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
      result = await replayEval(ledger!, dataset, variants, recording.store, repeats, judgeModel);
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
      const total = dataset.cases.length * variants.length * repeats;
      if (chatty) {
        const notices = [...new Set(variants.map((variant) => variant.notice))];
        streams.stderr.write(
          `${terminalSafe(notices.join('; '))}\neval ${evalId}: ${dataset.cases.length} cases × ${variants.length} variant${variants.length > 1 ? 's' : ''}${repeats > 1 ? ` × ${repeats} repeats` : ''} = ${total} runs${ledger ? ` (${ledger.runs.length} finished before)` : ''}, recorded in ${terminalSafe(recording.file)} ("stageloop runs" lists them)\n`,
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
            onRun,
            ...(judgeModel && { judgeModel }),
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
        dataset.cases.length * variants.length * repeats -
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
    await calculatorHost.close();
    await recording.store.close().catch(() => undefined);
  }
}

type Start = (
  signal: AbortSignal,
  onRun: (
    run: import('../../src/eval/types.js').CaseRun,
    progress: { done: number; total: number; passed: number },
  ) => void,
) => Promise<EvalResult>;

/** Runs the eval with Ctrl-C handling: the first stops it keeping what finished, the second quits at once. */
async function attendedEval(
  streams: CliStreams,
  chatty: boolean,
  ledgerFile: () => string,
  start: Start,
): Promise<{ result: EvalResult; interrupted: boolean }> {
  const { appendRun } = await import('../../src/eval/ledger.js');
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    streams.stderr.write('\nstopping: finished runs are kept (press Ctrl-C again to quit at once)\n');
    controller.abort(new Error('cancelled with Ctrl-C'));
  };
  process.on('SIGINT', onInterrupt);
  const live = chatty && (streams.stderr as NodeJS.WriteStream).isTTY === true;
  try {
    const result = await start(controller.signal, (run, progress) => {
      appendRun(ledgerFile(), run);
      if (!chatty) return;
      streams.stderr.write(live ? `\r\u001b[K${progressBar(run, progress)}` : `${progressLine(run, progress)}\n`);
    });
    if (live) streams.stderr.write('\n');
    const interrupted = controller.signal.aborted && !result.complete;
    if (interrupted) ledgerFile();
    return { result, interrupted };
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

async function replayEval(
  ledger: import('../../src/eval/ledger.js').Ledger,
  dataset: import('../../src/eval/dataset.js').Dataset,
  variants: Array<Awaited<ReturnType<typeof variantRun>>>,
  store: RunStore,
  repeats: number,
  judgeModel: ChatModel | undefined,
): Promise<EvalResult> {
  const [{ regrade }, { replayRun }, { loadRun }, { toolCallsOfJournal }] = await Promise.all([
    import('../../src/eval/regrade.js'),
    import('../../src/durable/replay.js'),
    import('../../src/durable/inspect.js'),
    import('../../src/eval/subject.js'),
  ]);
  const byName = new Map(variants.map((variant) => [variant.name, variant]));
  return regrade({
    evalId: ledger.header.evalId,
    dataset,
    variants: variants.map((variant) => variant.name),
    repeats,
    runs: ledger.runs,
    ...(judgeModel && { judgeModel }),
    async load(run) {
      const variant = byName.get(run.variant)!;
      const tools = variant.deps?.tools;
      const report = await replayRun(store, run.runId, {
        pipeline: variant.pipeline,
        ...(tools && { deps: { tools } }),
      });
      return { result: report.result, toolCalls: toolCallsOfJournal((await loadRun(store, run.runId)).journal) };
    },
  });
}

/** The HTML report, with each run as the console shows it (its timeline) for the drill-down. */
async function writeReport(
  file: string,
  result: EvalResult,
  comparison: import('../../src/eval/baseline.js').BaselineComparison | undefined,
  store: RunStore,
): Promise<void> {
  const [{ writeHtmlReport }, { runViewOf }] = await Promise.all([
    import('../../src/eval/report-html.js'),
    import('../../src/server/run-view.js'),
  ]);
  const views: Record<string, Awaited<ReturnType<typeof runViewOf>>> = {};
  for (const run of result.results.flatMap((entry) => entry.runs))
    views[run.runId] = await runViewOf(store, run.runId, shownSlots);
  await writeHtmlReport(file, result, views, comparison);
}
