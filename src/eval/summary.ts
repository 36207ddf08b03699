// From graded runs to the case × variant entries, the summary per variant and the cases where variants disagree.
import type { CaseResult, CaseRun, Disagreement, EvalResult, VariantSummary } from './types.js';

/** Nearest-rank percentile of the values (0 when there are none). */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : values.reduce((total, value) => total + value, 0) / values.length;

/** Entries in dataset order, then variant order; a case × variant with no finished run is left out. */
export function caseResults(
  caseIds: readonly string[],
  variants: readonly string[],
  runs: readonly CaseRun[],
): CaseResult[] {
  const results: CaseResult[] = [];
  // Grouped once: a filter per case × variant would be quadratic in a large dataset.
  const byKey = new Map<string, CaseRun[]>();
  for (const run of runs) {
    const key = JSON.stringify([run.id, run.variant]);
    byKey.set(key, [...(byKey.get(key) ?? []), run]);
  }
  for (const id of caseIds) {
    for (const variant of variants) {
      const mine = (byKey.get(JSON.stringify([id, variant])) ?? []).sort((left, right) => left.repeat - right.repeat);
      if (mine.length === 0) continue;
      results.push({
        id,
        variant,
        pass: mine.every((run) => run.pass),
        score: mean(mine.map((run) => run.score)),
        runs: mine,
      });
    }
  }
  return results;
}

export function summarise(variants: readonly string[], results: readonly CaseResult[]): VariantSummary[] {
  return variants.map((variant) => {
    const mine = results.filter((result) => result.variant === variant);
    const runs = mine.flatMap((result) => result.runs);
    const passed = mine.filter((result) => result.pass).length;
    const latencies = runs.map((run) => run.latencyMs);
    const stopReasons: Record<string, number> = {};
    for (const run of runs) stopReasons[run.stopReason] = (stopReasons[run.stopReason] ?? 0) + 1;
    const tokens = runs.reduce((total, run) => total + run.tokens.total, 0);
    return {
      variant,
      cases: mine.length,
      passed,
      passRate: mine.length === 0 ? 0 : passed / mine.length,
      meanScore: mean(mine.map((result) => result.score)),
      tokens: { total: tokens, meanPerRun: runs.length === 0 ? 0 : tokens / runs.length },
      costUsd: runs.reduce((total, run) => total + run.costUsd, 0),
      latencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
      stopReasons,
    };
  });
}

export function disagreements(results: readonly CaseResult[]): Disagreement[] {
  const byCase = new Map<string, Record<string, boolean>>();
  for (const result of results) byCase.set(result.id, { ...byCase.get(result.id), [result.variant]: result.pass });
  return [...byCase].filter(([, pass]) => new Set(Object.values(pass)).size > 1).map(([id, pass]) => ({ id, pass }));
}

export function evalResult(
  evalId: string,
  dataset: string,
  caseIds: readonly string[],
  variants: readonly string[],
  runs: readonly CaseRun[],
  complete: boolean,
): EvalResult {
  const results = caseResults(caseIds, variants, runs);
  return {
    evalId,
    dataset,
    complete,
    results,
    summary: summarise(variants, results),
    disagreements: disagreements(results),
  };
}
