// What `stageloop eval` prints: the progress line, the table per variant, the cases where variants disagree, failures;
// and the --html report it writes.
import type { BaselineComparison } from '../../src/eval/baseline.js';
import type { CaseRun, EvalResult } from '../../src/eval/types.js';
import type { RunStore } from '../../src/store/types.js';
import { shownSlots } from '../shown-slots.js';
import { terminalSafe } from './terminal-text.js';

const milliseconds = (value: number): string =>
  value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
const percent = (value: number): string => `${Math.round(value * 100)}%`;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** One progress line per finished run: `[3/8] react multiply pass 0.41 s`; on a terminal it rewrites itself. */
export function progressLine(run: CaseRun, progress: { done: number; total: number; passed: number }): string {
  return terminalSafe(
    `[${progress.done}/${progress.total}] ${run.variant} ${run.id}${run.repeat > 0 ? ` #${run.repeat + 1}` : ''} ${run.pass ? 'pass' : 'FAIL'} ${milliseconds(run.latencyMs)} · ${progress.passed} passed`,
  );
}

/** On a terminal the line rewrites itself with a bar in front: `[######----] 6/10 · 5 passed · react words pass 38 ms`. */
export function progressBar(
  run: CaseRun,
  progress: { done: number; total: number; passed: number },
  width = 20,
): string {
  const filled = progress.total === 0 ? width : Math.round((width * progress.done) / progress.total);
  return terminalSafe(
    `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${progress.done}/${progress.total} · ${progress.passed} passed · ${run.variant} ${run.id} ${run.pass ? 'pass' : 'FAIL'} ${milliseconds(run.latencyMs)}`,
  );
}

export function variantTable(result: EvalResult): string {
  const rows = [['VARIANT', 'PASSED', 'RATE', 'SCORE', 'TOKENS', 'COST', 'P50', 'P95', 'STOP REASONS']];
  for (const summary of result.summary) {
    const stops = Object.entries(summary.stopReasons)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', ');
    rows.push([
      summary.variant,
      `${summary.passed}/${summary.cases}`,
      percent(summary.passRate),
      summary.meanScore.toFixed(2),
      String(summary.tokens.total),
      `$${summary.costUsd.toFixed(4)}`,
      milliseconds(summary.latencyMs.p50),
      milliseconds(summary.latencyMs.p95),
      stops,
    ]);
  }
  return table(rows);
}

function disagreementTable(result: EvalResult): string | undefined {
  if (result.disagreements.length === 0) return undefined;
  const variants = result.summary.map((summary) => summary.variant);
  const rows = [
    ['CASE', ...variants],
    ...result.disagreements.map((entry) => [
      entry.id,
      ...variants.map((variant) => (entry.pass[variant] === undefined ? '-' : entry.pass[variant] ? 'pass' : 'FAIL')),
    ]),
  ];
  return `cases where the variants disagree:\n${table(rows)}`;
}

function failureLines(result: EvalResult, limit = 10): string[] {
  const failed = result.results.filter((entry) => !entry.pass);
  const lines = failed.slice(0, limit).map((entry) => {
    const run = entry.runs.find((candidate) => !candidate.pass)!;
    const reason = run.grades.find((grade) => !grade.pass)?.reason ?? run.status;
    return `  ${entry.variant} ${entry.id}: ${reason} (run ${run.runId})`;
  });
  if (failed.length > limit) lines.push(`  ... and ${failed.length - limit} more (--json has them all)`);
  return lines.length === 0 ? [] : ['failed:', ...lines];
}

function baselineLines(comparison: BaselineComparison): string[] {
  const lines = [
    `baseline ${comparison.file} (threshold ${comparison.threshold}): ${comparison.failed ? 'REGRESSED' : 'no regression'}`,
  ];
  for (const variant of comparison.variants) {
    lines.push(
      `  ${variant.variant}: pass rate ${percent(variant.passRate.before)} → ${percent(variant.passRate.now)}, score ${variant.meanScore.before.toFixed(2)} → ${variant.meanScore.now.toFixed(2)}${variant.regressed ? ' (fell more than the threshold)' : ''}`,
    );
  }
  for (const entry of comparison.regressions)
    lines.push(`  ${entry.kind === 'regressed' ? 'regressed' : 'new case failing'}: ${entry.variant} ${entry.id}`);
  if (comparison.fixed.length > 0)
    lines.push(`  fixed: ${comparison.fixed.map((entry) => `${entry.variant} ${entry.id}`).join(', ')}`);
  if (comparison.stillFailing.length > 0)
    lines.push(
      `  still failing (as in the baseline): ${comparison.stillFailing.map((entry) => `${entry.variant} ${entry.id}`).join(', ')}`,
    );
  return lines;
}

/** The report on stdout after the eval. */
export function textReport(result: EvalResult, comparison: BaselineComparison | undefined): string {
  const runs = result.results.reduce((count, entry) => count + entry.runs.length, 0);
  const failed = result.results.filter((entry) => !entry.pass).length;
  const verdict =
    failed === 0
      ? result.complete
        ? 'every case passed'
        : 'every finished case passed'
      : `${failed} of ${result.results.length} case × variant results failed`;
  const parts = [`eval ${result.evalId} · ${result.dataset} · ${runs} runs · ${verdict}`, variantTable(result)];
  const disagreement = disagreementTable(result);
  if (disagreement) parts.push(disagreement);
  const failures = failureLines(result);
  if (failures.length > 0) parts.push(failures.join('\n'));
  if (comparison) parts.push(baselineLines(comparison).join('\n'));
  return terminalSafe(parts.join('\n\n'));
}

/** The HTML report, with each run as the console shows it (its timeline) for the drill-down. */
export async function writeReport(
  file: string,
  result: EvalResult,
  comparison: BaselineComparison | undefined,
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
