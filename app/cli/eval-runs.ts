// The two ways `stageloop eval` gets its result: a live eval under Ctrl-C handling (each finished run written to the
// ledger), or a replay that grades the recorded runs again. Apart from eval-command.ts, which reads flags and reports.
import type { Dataset } from '../../src/eval/dataset.js';
import type { Ledger } from '../../src/eval/ledger.js';
import type { CaseRun, EvalResult } from '../../src/eval/types.js';
import type { ChatModel } from '../../src/model/types.js';
import type { RunStore } from '../../src/store/types.js';
import type { CliStreams } from './command.js';
import { progressBar, progressLine } from './eval-output.js';
import type { VariantRun } from './eval-variants.js';

/** Starts the eval with its signal; `onRun` hears of each finished run. */
export type Start = (
  signal: AbortSignal,
  onRun: (run: CaseRun, progress: { done: number; total: number; passed: number }) => void,
) => Promise<EvalResult>;

/** Runs the eval with Ctrl-C handling: the first stops it keeping what finished, the second quits at once. */
export async function attendedEval(
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

/** Grades an eval's recorded runs again, each replayed from its journal: no model call. */
export async function replayEval(
  ledger: Ledger,
  dataset: Dataset,
  variants: VariantRun[],
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
