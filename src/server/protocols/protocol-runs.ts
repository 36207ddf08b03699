// The piece every protocol adapter shares: a protocol's request becomes an ordinary recorded run started through the
// server's run host (as POST /v1/runs starts one), and the run's events and result become what the protocol says.
import { StageloopError } from '../../common/stageloop-error.js';
import type { RunResult } from '../../engine/run-result.js';
import type { RunEvent } from '../../engine/stage.js';
import type { EventLog } from '../../stream/event-log.js';
import type { RunRequestOptions, StartRunBody } from '../request-schemas.js';
import { startRun, type StartRunServices } from '../start-run.js';
import type { ClientMessage } from '../../engine/client-conversation.js';

/** The response header every protocol answer carries: the run it started (for `stageloop show`, approvals). */
export const runIdHeader = 'x-stageloop-run-id';

export interface ProtocolRunRequest {
  pipeline: string;
  task: string;
  /** An agent of the server's config file (its pipeline wins): startRun checks the name as for POST /v1/runs. */
  agent?: string;
  /** The run's guards, as POST /v1/runs takes them. */
  options?: RunRequestOptions;
  /** Tools whose calls pause the run for a person's decision. */
  approveTools?: StartRunBody['approveTools'];
  /** The client's messages before the task, each in its role (the run renders them as messages, never as task text). */
  conversation?: ClientMessage[];
}

export interface ProtocolRun {
  runId: string;
  log: EventLog;
  /** The run's result; rejects with a StageloopError when the run threw instead of ending. */
  result: Promise<RunResult>;
  cancel(reason: string): void;
}

/** A protocol's own name field (a model, a skill) that names a configured agent and no pipeline is that agent. */
export function agentNamedBy(name: string, services: StartRunServices): string | undefined {
  if (services.pipelines.some((pipeline) => pipeline.name === name)) return undefined;
  return services.agents?.some((agent) => agent.name === name) === true ? name : undefined;
}

/** Starts the run through the server's one door (its errors are the door's); a blank task is the caller's to fix. */
export async function startProtocolRun(services: StartRunServices, request: ProtocolRunRequest): Promise<ProtocolRun> {
  if (request.task.trim() === '') throw new StageloopError('usage', 'the task is empty: send a user message with text');
  const { runId, log } = await startRun(services, request);
  const result = services.host.result(runId)!.then((ended) => {
    if (ended === undefined) throw new StageloopError('internal', `run ${runId} ended without a result`);
    return ended;
  });
  return { runId, log, result, cancel: (reason) => void services.host.cancel(runId, reason) };
}

/** Every event of the run in order, as it happens, ending after the last one; leaving early stops only the reading. */
export function eventsOf(log: EventLog, signal?: AbortSignal): AsyncGenerator<RunEvent> {
  return log.read(0, signal);
}

/** One message of a protocol's conversation, as text in its role. */
export interface ConversationTurn {
  role: string;
  text: string;
}

/**
 * A conversation kept structured: the last user message with text is the task, the messages before it stay messages
 * in their roles (system and developer as the client's system text; a tool result as a user message saying so).
 */
export function structuredConversation(turns: readonly ConversationTurn[]): {
  task: string;
  conversation: ClientMessage[];
} {
  const lastUser = turns.findLastIndex((turn) => turn.role === 'user' && turn.text.trim() !== '');
  if (lastUser === -1)
    throw new StageloopError('usage', 'the messages hold no user message with text: send at least one');
  const conversation = turns.slice(0, lastUser).flatMap((turn): ClientMessage[] => {
    if (turn.text.trim() === '') return [];
    if (turn.role === 'system' || turn.role === 'developer') return [{ role: 'system', content: turn.text }];
    if (turn.role === 'assistant') return [{ role: 'assistant', content: turn.text }];
    if (turn.role === 'user') return [{ role: 'user', content: turn.text }];
    return [{ role: 'user', content: `(a ${turn.role} message of the application) ${turn.text}` }];
  });
  return { task: turns[lastUser]!.text.trim(), conversation };
}

/** Limit stops say the answer was cut short; everything else ended on its own terms. */
export function wasCutShort(result: RunResult): boolean {
  const kind = result.stopReason.kind;
  return kind === 'max_iterations' || kind === 'truncation' || kind.startsWith('budget_');
}

/** The text a protocol shows as the answer: the run's answer, or one line saying why there is none. */
export function answerTextOf(result: RunResult): string {
  if (result.answer !== null && result.answer !== '') return result.answer;
  if (result.status === 'interrupted') {
    const waiting = (result.pending ?? []).map((pending) => pending.id).join(', ');
    return `The run ${result.runId} is waiting for a decision (${waiting}): decide with POST /v1/runs/${result.runId}/decisions or "stageloop approve ${result.runId}".`;
  }
  return `The run ${result.runId} ended ${result.status} without an answer: ${result.stopReason.message}`;
}
