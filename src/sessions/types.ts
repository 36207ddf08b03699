// The SessionStore port: conversation turns, the session summary and durable facts, per user and session.
import { StageloopError } from '../common/stageloop-error.js';
import type {} from '../engine/stage.js';

/** Who a session belongs to: `user` (a tenant or user id, default "default") and the session's name. */
export interface SessionScope {
  user: string;
  session: string;
}

/** How a turn's run ended; a turn without one completed. */
export type TurnStatus = 'completed' | 'stopped' | 'cancelled' | 'failed';

/**
 * One turn as the store keeps it. `tools`: a short account of the tool results the answer relied on. A turn that did
 * not complete keeps its `status` and its partial answer (empty when there was none), so nothing of the conversation
 * is lost.
 */
export interface TurnRecord {
  seq: number;
  runId: string;
  task: string;
  answer: string;
  tools: string[];
  at: number;
  /** Absent for a completed turn. */
  status?: Exclude<TurnStatus, 'completed'>;
  /** What the turn's run spent (absent: nothing, or a turn kept before turns kept it); the session budget sums it. */
  usage?: SessionUsage;
}

/** Tokens (input + output) and US dollars spent: by one turn, or by a session's turns all together. */
export interface SessionUsage {
  tokens: number;
  costUsd: number;
}

export type NewTurn = Omit<TurnRecord, 'seq'>;

export interface Fact {
  key: string;
  value: string;
  sourceRun: string;
  updated: number;
}

/** What a history load gives: the summary of folded turns, the turns after it, the facts, and rows that could not be read. */
export interface SessionHistory {
  summary: string;
  turns: TurnRecord[];
  facts: Fact[];
  /** One line per stored row that could not be read; the row is kept as it is. */
  problems: string[];
  /** What every turn of the session spent, folded ones included; absent when nothing was. */
  spent?: SessionUsage;
}

export interface SessionStore {
  /** Names the store in messages: its file, or "the memory session store". */
  readonly name: string;
  exists(scope: SessionScope): Promise<boolean>;
  load(scope: SessionScope): Promise<SessionHistory>;
  /** Appends the turn; a turn of the same run (a resumed one) replaces the earlier one, keeping its seq. */
  appendTurn(scope: SessionScope, turn: NewTurn): Promise<TurnRecord>;
  /** Folds the turns with these seqs into `summary`, in one transaction: all of them or none (their usage stays in the session's total). */
  compact(scope: SessionScope, foldedSeqs: readonly number[], summary: string): Promise<void>;
  listFacts(scope: SessionScope): Promise<Fact[]>;
  setFact(scope: SessionScope, fact: Fact): Promise<void>;
  /** False when the session has no fact of that key. */
  deleteFact(scope: SessionScope, key: string): Promise<boolean>;
  close(): void;
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const defaultUser = 'default';

/** Checks a session or user name: letters, digits, ".", "_" and "-", at most 64, never a path. */
export function checkName(kind: 'session' | 'user', name: string): string {
  if (namePattern.test(name) && !name.includes('..')) return name;
  const why = /[/\\]|\.\./.test(name) ? 'has path characters' : name === '' ? 'is empty' : 'is not a plain name';
  throw new StageloopError(
    'usage',
    `${kind} name ${JSON.stringify(name)} ${why}: use letters, digits, ".", "_" or "-" (at most 64), e.g. --${kind} work-notes`,
  );
}

export function sessionScope(session: string, user: string = defaultUser): SessionScope {
  return { user: checkName('user', user), session: checkName('session', session) };
}

export const factKeyPattern = /^[A-Za-z0-9][A-Za-z0-9 ._:-]{0,79}$/;
export const maxFactValueLength = 2_000;

/** Checks a fact's key and value, returning them trimmed; a bad one is a user error that names the rule. */
export function checkFact(key: string, value: string): { key: string; value: string } {
  const trimmedKey = key.trim();
  const trimmedValue = value.trim();
  if (!factKeyPattern.test(trimmedKey)) {
    throw new StageloopError(
      'usage',
      `fact key ${JSON.stringify(key)} is not usable: start with a letter or digit, then letters, digits, spaces, ".", "_", ":" or "-" (at most 80)`,
    );
  }
  if (trimmedValue === '' || trimmedValue.length > maxFactValueLength) {
    throw new StageloopError(
      'usage',
      `the value of fact "${trimmedKey}" must be 1 to ${maxFactValueLength} characters, got ${trimmedValue.length}`,
    );
  }
  return { key: trimmedKey, value: trimmedValue };
}

declare module '../engine/stage.js' {
  interface Deps {
    /** Where session history and facts live; the history and memory stages need it when a run has a session. */
    sessions?: SessionStore;
  }
}
