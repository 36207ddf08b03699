// A dataset as the eval runner reads it: the case ids (for totals, resume checks and reports) and the cases one at a
// time, so a large JSONL file is checked in full before any run, then read again case by case as runs start: memory
// holds the ids and the cases in flight, never every case.
import { extname, resolve } from 'node:path';
import type { Dataset } from './dataset.js';
import { jsonlCases, loadDataset, readJsonl } from './dataset.js';
import type { EvalCase, Grader } from './graders/types.js';

export interface CaseStream {
  /** Where it came from, for reports ("examples/math.jsonl", "builtin:arithmetic"). */
  name: string;
  /** Every case's id, in order. */
  ids: readonly string[];
  /** The cases in order, read afresh on each call. */
  cases(): AsyncIterable<EvalCase> | Iterable<EvalCase>;
  /** Graders a module dataset adds to every case. */
  graders?: Grader[];
}

/** Cases held in memory (a module's, a built-in's, a list given in code) as a stream. */
export function caseStreamOf(dataset: Dataset | CaseStream | readonly EvalCase[]): CaseStream {
  if (!Array.isArray(dataset) && 'ids' in dataset) return dataset as CaseStream;
  const held: Dataset = Array.isArray(dataset)
    ? { name: 'dataset', cases: [...(dataset as readonly EvalCase[])] }
    : (dataset as Dataset);
  return {
    name: held.name,
    ids: held.cases.map((evalCase) => evalCase.id),
    cases: () => held.cases.values(),
    ...(held.graders !== undefined && { graders: held.graders }),
  };
}

/** `loadDataset`'s sources, a JSONL file streamed: every line checked now (ids kept), the cases read again as asked. */
export async function openDataset(source: string, cwd = process.cwd()): Promise<CaseStream> {
  const file = resolve(cwd, source);
  if (source.startsWith('builtin:') || ['.js', '.mjs', '.ts', '.mts'].includes(extname(file)))
    return caseStreamOf(await loadDataset(source, cwd));
  const ids: string[] = [];
  await readJsonl(file, source, (evalCase) => ids.push(evalCase.id));
  return {
    name: source,
    ids,
    cases: () => jsonlCases(file, source),
  };
}
