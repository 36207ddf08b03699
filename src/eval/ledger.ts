// An eval's ledger: one JSONL file per eval, its settings first, then each graded run as soon as it finished, written
// synchronously so an interrupt never loses one. --resume reads it to run the rest, --replay to grade again.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { JsonObject } from '../common/json.js';
import { StageloopError } from '../common/stageloop-error.js';
import type { CaseRun } from './types.js';

export interface LedgerHeader {
  evalId: string;
  /** The dataset as given on the command line, and the folder it was given from. */
  dataset: string;
  cwd: string;
  /** The variants as JSON (the CLI's VariantSpec). */
  variants: JsonObject[];
  repeats: number;
  createdAt: string;
}

export interface Ledger {
  header: LedgerHeader;
  runs: CaseRun[];
  file: string;
}

export const ledgerFile = (folder: string, evalId: string): string => join(folder, `${evalId}.jsonl`);

export function createLedger(folder: string, header: LedgerHeader): string {
  mkdirSync(folder, { recursive: true });
  const file = ledgerFile(folder, header.evalId);
  appendFileSync(file, `${JSON.stringify({ kind: 'eval', ...header })}\n`);
  return file;
}

export function appendRun(file: string, run: CaseRun): void {
  appendFileSync(file, `${JSON.stringify({ kind: 'run', ...run })}\n`);
}

/** The eval's settings and finished runs; a torn last line (the process died mid-write) is skipped. */
export function readLedger(folder: string, evalId: string): Ledger {
  if (!/^[\w.-]+$/.test(evalId))
    throw new StageloopError(
      'usage',
      `"${evalId}" is not an eval id: ids look like eval-1a2b3c4d5e (printed when an eval starts)`,
    );
  const file = ledgerFile(folder, evalId);
  if (!existsSync(file))
    throw new StageloopError(
      'not_found',
      `no eval ${evalId} in ${folder}: the id is printed when an eval starts (and --store must name the same store)`,
    );
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const parsed = lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as { kind?: string } & Record<string, unknown>];
    } catch {
      return [];
    }
  });
  const first = parsed[0];
  if (first?.kind !== 'eval')
    throw new StageloopError('store', `${file} is not an eval ledger (its first line holds no eval settings)`);
  const { kind: _kind, ...header } = first;
  const runs = new Map<string, CaseRun>();
  for (const entry of parsed.slice(1)) {
    if (entry.kind !== 'run') continue;
    const { kind: _run, ...run } = entry;
    const caseRun = run as unknown as CaseRun;
    runs.set(JSON.stringify([caseRun.id, caseRun.variant, caseRun.repeat]), caseRun);
  }
  return { header: header as unknown as LedgerHeader, runs: [...runs.values()], file };
}

/** --resume continues the dataset the eval ran: another would mix two datasets under one eval id. */
export function checkResumedDataset(header: LedgerHeader, given: string, cwd: string): void {
  const place = (source: string, folder: string) => (source.startsWith('builtin:') ? source : resolve(folder, source));
  if (place(given, cwd) === place(header.dataset, header.cwd)) return;
  throw new StageloopError(
    'usage',
    `--resume ${header.evalId}: that eval ran ${place(header.dataset, header.cwd)}, not ${place(given, cwd)}: drop the dataset to continue it, or start a new eval on ${given}`,
  );
}

/** A finished run of a case the dataset no longer has: the file changed since the eval began. */
export function checkResumedCases(ledger: Ledger, caseIds: ReadonlySet<string>, datasetName: string): void {
  const gone = ledger.runs.find((run) => !caseIds.has(run.id));
  if (gone === undefined) return;
  throw new StageloopError(
    'usage',
    `--resume ${ledger.header.evalId}: case "${gone.id}" ran in that eval but ${datasetName} has no such case now: the dataset changed since; start a new eval`,
  );
}
