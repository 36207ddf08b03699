// The SessionStore rules, written once over a small table interface: names checked, rows read defensively (a row
// that cannot be read is reported and kept, never dropped), compaction all or nothing.
import { messageOf } from '../common/error-message.js';
import { rejectingThrows } from '../common/promise-like.js';
import {
  checkFact,
  checkName,
  type Fact,
  type NewTurn,
  type SessionHistory,
  type SessionScope,
  type SessionStore,
  type SessionUsage,
  type TurnRecord,
  type TurnStatus,
} from './types.js';
import { StageloopError } from '../common/stageloop-error.js';

/** A turn row as stored: tools as JSON text; anything may be wrong with a row someone edited by hand. */
export interface TurnRow {
  seq: number;
  runId: unknown;
  task: unknown;
  answer: unknown;
  tools: unknown;
  at: unknown;
  /** Absent in a row written before turns had a status. */
  status?: unknown;
  /** What the turn spent; 0 in a row written before turns kept it. */
  tokens?: unknown;
  costUsd?: unknown;
}

export interface FactRow {
  key: unknown;
  value: unknown;
  sourceRun: unknown;
  updated: unknown;
}

/** Where the rows live. `write` runs its body as one atomic transaction. */
export interface SessionTables {
  readonly name: string;
  write<Result>(body: () => Result): Result;
  read<Result>(body: () => Result): Result;
  /** The session's summary, or undefined when the session has no row. */
  summary(scope: SessionScope): string | undefined;
  /** What the session's folded turns spent (0 and 0 when none were folded, or the session has no row). */
  folded(scope: SessionScope): SessionUsage;
  ensureSession(scope: SessionScope, at: number): void;
  /** The new summary, and the folded turns' usage added to the session's folded total. */
  setSummary(scope: SessionScope, summary: string, at: number, folded: SessionUsage): void;
  turns(scope: SessionScope): TurnRow[];
  insertTurn(scope: SessionScope, row: TurnRecord & { toolsText: string }): void;
  deleteTurn(scope: SessionScope, seq: number): void;
  facts(scope: SessionScope): FactRow[];
  putFact(scope: SessionScope, fact: Fact): void;
  /** The number of facts removed (0 or 1). */
  removeFact(scope: SessionScope, key: string): number;
  close(): void;
}

export function checked(scope: SessionScope): SessionScope {
  return { user: checkName('user', scope.user), session: checkName('session', scope.session) };
}

export function label(scope: SessionScope): string {
  return `session "${scope.session}" of user "${scope.user}"`;
}

export function readTurn(row: TurnRow): TurnRecord | string {
  let tools: unknown;
  try {
    tools = typeof row.tools === 'string' ? JSON.parse(row.tools) : undefined;
  } catch (error) {
    return `turn ${row.seq}: its tool account is not JSON (${messageOf(error)})`;
  }
  if (!Array.isArray(tools) || !tools.every((entry) => typeof entry === 'string'))
    return `turn ${row.seq}: its tool account is not a list of text`;
  if (typeof row.task !== 'string' || typeof row.answer !== 'string')
    return `turn ${row.seq}: its task or answer is not text`;
  if (typeof row.runId !== 'string' || typeof row.at !== 'number')
    return `turn ${row.seq}: its run id or time is missing`;
  const status = row.status ?? 'completed';
  if (!(typeof status === 'string' && turnStatuses.has(status)))
    return `turn ${row.seq}: its status ${JSON.stringify(status)} is not one of ${[...turnStatuses].join(', ')}`;
  const record: TurnRecord = {
    seq: row.seq,
    runId: row.runId,
    task: row.task,
    answer: row.answer,
    tools: tools as string[],
    at: row.at,
  };
  if (status !== 'completed') record.status = status as Exclude<TurnStatus, 'completed'>;
  const usage = usageOf(row.tokens, row.costUsd);
  if (usage !== undefined) record.usage = usage;
  return record;
}

/** Usage of two stored figures; undefined when both are 0 (or not numbers: a row edited by hand spent nothing). */
export function usageOf(tokens: unknown, costUsd: unknown): SessionUsage | undefined {
  const figure = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);
  const usage = { tokens: figure(tokens), costUsd: figure(costUsd) };
  return usage.tokens === 0 && usage.costUsd === 0 ? undefined : usage;
}

/** The session's total: its folded turns and the turns kept; undefined when nothing was spent. */
export function spentOf(folded: SessionUsage, turns: readonly TurnRecord[]): SessionUsage | undefined {
  let tokens = folded.tokens;
  let costUsd = folded.costUsd;
  for (const turn of turns) {
    tokens += turn.usage?.tokens ?? 0;
    costUsd += turn.usage?.costUsd ?? 0;
  }
  return usageOf(tokens, costUsd);
}

/** A session row's folded figures (absent row: none). */
export function foldedOf(row: { tokens?: unknown; costUsd?: unknown } | undefined): SessionUsage {
  return usageOf(row?.tokens, row?.costUsd) ?? { tokens: 0, costUsd: 0 };
}

/** The turns' usage added to `base` (what compaction moves into the session's folded total). */
export function foldedUsage(base: SessionUsage, turns: readonly TurnRecord[]): SessionUsage {
  return spentOf(base, turns) ?? { tokens: 0, costUsd: 0 };
}

const turnStatuses: ReadonlySet<string> = new Set<TurnStatus>(['completed', 'stopped', 'cancelled', 'failed']);

export function readFact(row: FactRow): Fact | string {
  if (
    typeof row.key !== 'string' ||
    typeof row.value !== 'string' ||
    typeof row.sourceRun !== 'string' ||
    typeof row.updated !== 'number'
  ) {
    return `fact ${JSON.stringify(String(row.key))}: a column is not of its type`;
  }
  return { key: row.key, value: row.value, sourceRun: row.sourceRun, updated: row.updated };
}

/** Reads rows, collecting one line per unreadable row instead of failing the whole load. */
export function readAll<Row, Value>(
  rows: Row[],
  read: (row: Row) => Value | string,
  where: string,
  problems: string[],
): Value[] {
  const values: Value[] = [];
  for (const row of rows) {
    const value = read(row);
    if (typeof value === 'string')
      problems.push(`${where}: ${value}; the row is kept as it is (fix or delete it in the store)`);
    else values.push(value);
  }
  return values;
}

export function byKey(facts: Fact[]): Fact[] {
  return facts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export function createSessionStore(tables: SessionTables, clock: { now(): number } = Date): SessionStore {
  // Promises over synchronous tables: a body runs alone, so each call is atomic.
  const run = <Result>(body: () => Result): Promise<Result> => rejectingThrows(() => Promise.resolve(body()));
  return {
    name: tables.name,
    exists: (scope) => run(() => tables.read(() => tables.summary(checked(scope)) !== undefined)),
    load: (scope) =>
      run(() => {
        const owned = checked(scope);
        return tables.read((): SessionHistory => {
          const problems: string[] = [];
          const where = `${label(owned)} in ${tables.name}`;
          const turns = readAll(tables.turns(owned), readTurn, where, problems);
          const facts = byKey(readAll(tables.facts(owned), readFact, where, problems));
          const spent = spentOf(tables.folded(owned), turns);
          return { summary: tables.summary(owned) ?? '', turns, facts, problems, ...(spent && { spent }) };
        });
      }),
    appendTurn: (scope, turn: NewTurn) =>
      run(() => {
        const owned = checked(scope);
        return tables.write(() => {
          tables.ensureSession(owned, turn.at);
          const rows = tables.turns(owned);
          // A resumed turn (cancelled, then continued) replaces the one its run left, in its place.
          const earlier = rows.find((row) => row.runId === turn.runId)?.seq;
          if (earlier !== undefined) tables.deleteTurn(owned, earlier);
          const record: TurnRecord = { seq: earlier ?? (rows.at(-1)?.seq ?? 0) + 1, ...turn, tools: [...turn.tools] };
          if (record.status === undefined) delete record.status;
          const usage = usageOf(turn.usage?.tokens, turn.usage?.costUsd);
          if (usage === undefined) delete record.usage;
          else record.usage = usage;
          tables.insertTurn(owned, { ...record, toolsText: JSON.stringify(record.tools) });
          return record;
        });
      }),
    compact: (scope, foldedSeqs, summary) =>
      run(() => {
        const owned = checked(scope);
        tables.write(() => {
          const rows = tables.turns(owned);
          const present = new Set(rows.map((row) => row.seq));
          const missing = foldedSeqs.filter((seq) => !present.has(seq));
          // Another process compacted first: keep its summary rather than fold the same turns twice.
          if (missing.length > 0)
            throw new StageloopError(
              'store',
              `${label(owned)}: turns ${missing.join(', ')} are no longer there to fold; nothing was changed`,
            );
          for (const seq of foldedSeqs) tables.deleteTurn(owned, seq);
          // What the folded turns spent stays in the session's total (the session budget counts every turn).
          const folding = rows.filter((row) => foldedSeqs.includes(row.seq)).map(readTurn);
          const turns = folding.filter((turn): turn is TurnRecord => typeof turn !== 'string');
          tables.setSummary(owned, summary, clock.now(), foldedUsage(tables.folded(owned), turns));
        });
      }),
    listFacts: (scope) =>
      run(() => {
        const owned = checked(scope);
        return tables.read(() =>
          byKey(readAll(tables.facts(owned), readFact, `${label(owned)} in ${tables.name}`, [])),
        );
      }),
    setFact: (scope, fact) =>
      run(() => {
        const owned = checked(scope);
        const { key, value } = checkFact(fact.key, fact.value);
        tables.write(() => {
          tables.ensureSession(owned, fact.updated);
          tables.putFact(owned, { ...fact, key, value });
        });
      }),
    deleteFact: (scope, key) =>
      run(() => {
        const owned = checked(scope);
        return tables.write(() => tables.removeFact(owned, key.trim()) > 0);
      }),
    close: () => tables.close(),
  };
}
