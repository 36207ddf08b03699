// The regression gate: an earlier --json result against this one, case by case and variant by variant.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { StageloopError } from '../common/stageloop-error.js';
import type { EvalResult } from './types.js';

export interface Regression {
  id: string;
  variant: string;
  /** passed before and fails now, or new in the dataset and failing. */
  kind: 'regressed' | 'new_failure';
}

export interface VariantDrop {
  variant: string;
  passRate: { before: number; now: number };
  meanScore: { before: number; now: number };
  /** True when the pass rate or the mean score fell by more than the threshold. */
  regressed: boolean;
}

export interface BaselineComparison {
  file: string;
  threshold: number;
  regressions: Regression[];
  /** Cases that failed in the baseline and still fail: known, not a regression. */
  stillFailing: Array<{ id: string; variant: string }>;
  fixed: Array<{ id: string; variant: string }>;
  variants: VariantDrop[];
  /** True when the gate fails: threshold 0 and any regression, or a variant that fell by more than the threshold. */
  failed: boolean;
}

// What the comparison reads of a baseline, checked field by field: an edited file is a usage error naming the field.
const rate = z.number().min(0).max(1);
const baselineSchema = z.looseObject({
  results: z.array(z.looseObject({ id: z.string(), variant: z.string(), pass: z.boolean() })),
  summary: z.array(z.looseObject({ variant: z.string(), passRate: rate, meanScore: rate })).optional(),
});

export function readBaseline(file: string): EvalResult {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new StageloopError(
      missing ? 'not_found' : 'usage',
      missing
        ? `--baseline ${file}: no such file (write one with stageloop eval DATASET --json > ${file})`
        : `--baseline ${file} is not JSON: give the output of stageloop eval --json`,
    );
  }
  const checked = baselineSchema.safeParse(value);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join('.') : 'the file';
    throw new StageloopError(
      'usage',
      `--baseline ${file}: ${field}: ${issue.message}: give the output of stageloop eval --json, unedited`,
    );
  }
  return value as EvalResult;
}

export function compareWithBaseline(
  baseline: EvalResult,
  now: EvalResult,
  file: string,
  threshold = 0,
): BaselineComparison {
  const before = new Map(baseline.results.map((entry) => [JSON.stringify([entry.id, entry.variant]), entry]));
  const regressions: Regression[] = [];
  const stillFailing: BaselineComparison['stillFailing'] = [];
  const fixed: BaselineComparison['fixed'] = [];
  for (const entry of now.results) {
    const earlier = before.get(JSON.stringify([entry.id, entry.variant]));
    const key = { id: entry.id, variant: entry.variant };
    if (earlier === undefined) {
      if (!entry.pass) regressions.push({ ...key, kind: 'new_failure' });
    } else if (earlier.pass && !entry.pass) regressions.push({ ...key, kind: 'regressed' });
    else if (!earlier.pass && !entry.pass) stillFailing.push(key);
    else if (!earlier.pass && entry.pass) fixed.push(key);
  }
  const variants = now.summary.flatMap((summary): VariantDrop[] => {
    const old = baseline.summary?.find((entry) => entry.variant === summary.variant);
    if (old === undefined) return [];
    const fell = (from: number, to: number) => from - to > threshold + 1e-12;
    return [
      {
        variant: summary.variant,
        passRate: { before: old.passRate, now: summary.passRate },
        meanScore: { before: old.meanScore, now: summary.meanScore },
        regressed: fell(old.passRate, summary.passRate) || fell(old.meanScore, summary.meanScore),
      },
    ];
  });
  const failed =
    threshold === 0
      ? regressions.length > 0
      : variants.some((variant) => variant.regressed) || regressions.some((entry) => entry.kind === 'new_failure');
  return { file, threshold, regressions, stillFailing, fixed, variants, failed };
}
