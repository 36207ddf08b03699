// A person's decisions during a run: the ports (deps.approve, deps.onLimit), their types, how a recorded run journals
// them (so a resume and a replay see the same), and the checks a decision given on resume must pass.
import type { JsonObject } from '../common/json.js';
import type { RunCursor } from '../engine/run-seam.js';
import type { PendingDecision } from '../engine/signal.js';
import type { ApprovalRequest, Decision, LimitDecision, LimitRequest } from '../engine/decision-types.js';
import type { JournalEntry } from './journal-entries.js';
import type { RunJournal } from './run-journal.js';
import { StageloopError } from '../common/stageloop-error.js';

export type { ApprovalRequest, Decision, LimitKind, LimitRequest, LimitDecision } from '../engine/decision-types.js';

declare module '../engine/stage.js' {
  interface Deps {
    /** Decides a call that needs approval; resolving undefined (or no approve at all) pauses the run instead. */
    approve?: (request: ApprovalRequest) => Promise<Decision | undefined>;
    /** Decides what happens when a budget is spent; undefined (or none) follows the budget's normal path. */
    onLimit?: (request: LimitRequest) => Promise<LimitDecision | undefined>;
  }
}

type Decider<Request, Answer> = (request: Request) => Promise<Answer | undefined>;

/** The two decisions a run asks for, by the type recorded with them. */
interface Decided {
  approval: { request: ApprovalRequest; answer: Decision };
  limit: { request: LimitRequest; answer: LimitDecision };
}

const answerChecks: {
  [Type in keyof Decided]: (answer: Decision | LimitDecision) => answer is Decided[Type]['answer'];
} = {
  approval: (answer): answer is Decision => 'approve' in answer,
  limit: (answer): answer is LimitDecision => 'action' in answer,
};

/** Serves a recorded decision at this place, else asks `live` and records what it answered (a pause records nothing). */
export function journaledDecider<Type extends keyof Decided>(
  live: Decider<Decided[Type]['request'], Decided[Type]['answer']> | undefined,
  type: Type,
  cursor: RunCursor,
  journal: RunJournal,
): Decider<Decided[Type]['request'], Decided[Type]['answer']> {
  return async (request) => {
    const next = journal.peekFor('decision', cursor);
    // A decision recorded for another call (a pause decided out of order) is not this call's.
    if (
      next?.kind === 'decision' &&
      (next.data.id === undefined || !('id' in request) || next.data.id === request.id)
    ) {
      const served = journal.serve('decision', cursor);
      const answer = served?.data.answer;
      if (answer !== undefined && answerChecks[type](answer)) return answer;
    }
    // A replay that finds no decision here: the recording paused at this point.
    if (journal.mode === 'replay' || live === undefined) return undefined;
    const answer = await live(request);
    if (answer !== undefined)
      journal.record('decision', cursor, { type, ...('id' in request ? { id: request.id } : {}), answer });
    return answer;
  };
}

/** What an interrupted run waits for: the pending list of its last pause, and the ids decided before it. */
export function pendingOf(journal: readonly JournalEntry[]): { pending: PendingDecision[]; decided: Set<string> } {
  let pending: PendingDecision[] = [];
  const decided = new Set<string>();
  for (const entry of journal) {
    if (entry.kind === 'stage' && entry.data.signal?.type === 'interrupt_run')
      pending = [...(entry.data.signal.pending ?? [])];
    if (entry.kind === 'decision' && entry.data.id !== undefined) decided.add(entry.data.id);
  }
  return { pending, decided };
}

/** Checks decisions given on resume against what the run waits for; throws an `invalid_decision` StageloopError naming the first problem. */
export function checkDecisions(
  runId: string,
  status: string,
  journal: readonly JournalEntry[],
  decisions: Readonly<Record<string, unknown>>,
): Map<string, Decision> {
  if (typeof decisions !== 'object' || decisions === null || Array.isArray(decisions)) {
    throw new StageloopError(
      'invalid_decision',
      'decisions must be an object keyed by call id, like { "call_1": { "approve": true } }',
    );
  }
  if (status !== 'interrupted')
    throw new StageloopError(
      'invalid_decision',
      `run ${runId} is not waiting for a decision (it is ${status}): only an interrupted run takes approvals or rejections`,
    );
  const { pending, decided } = pendingOf(journal);
  const checked = new Map<string, Decision>();
  for (const [id, value] of Object.entries(decisions)) {
    if (!pending.some((item) => item.id === id)) {
      if (decided.has(id))
        throw new StageloopError(
          'invalid_decision',
          `call ${id} of run ${runId} was already decided: a decision cannot be given twice`,
        );
      throw new StageloopError(
        'invalid_decision',
        `run ${runId} has no pending call ${id}: it waits for ${pending.map((item) => item.id).join(', ') || 'nothing'}`,
      );
    }
    checked.set(id, parseDecision(id, value));
  }
  return checked;
}

/** A decision as JSON (a file, a flag, an API call) checked field by field. */
export function parseDecision(id: string, value: unknown): Decision {
  const fail = (problem: string): never => {
    throw new StageloopError(
      'invalid_decision',
      `the decision for call ${id} ${problem}: use { "approve": true }, { "approve": false, "message": "..." } or { "approve": true, "arguments": {...} }`,
    );
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('is not an object');
  const { approve, message, arguments: edited, always, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) fail(`has an unknown field "${extra[0]}"`);
  if (typeof approve !== 'boolean') return fail('needs "approve": true or false');
  if (!approve) {
    if (edited !== undefined || always !== undefined) fail('rejects the call but also gives arguments or always');
    if (message !== undefined && typeof message !== 'string') fail('has a "message" that is not text');
    return message === undefined ? { approve: false } : { approve: false, message: message as string };
  }
  if (message !== undefined) fail('approves the call but gives a message (only a rejection carries one)');
  if (edited !== undefined) {
    if (typeof edited === 'string') return { approve: true, arguments: edited };
    if (typeof edited !== 'object' || edited === null || Array.isArray(edited))
      fail('has "arguments" that are neither a JSON object nor its text');
    return { approve: true, arguments: edited as JsonObject };
  }
  if (always !== undefined && typeof always !== 'boolean') fail('has an "always" that is not true or false');
  return always === true ? { approve: true, always: true } : { approve: true };
}
