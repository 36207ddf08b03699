// A server's sampling request under its config's policy (`sampling: 'allow' | 'ask' | 'deny'`): allowed, it goes to
// the run's model at once; denied, the server gets an error; asked, the call ends and the run pauses with a decision of
// kind `sampling` (the server's messages for a person to read), and the call run again on resume gets the model's
// answer (approved) or an error (rejected). The decision is journaled like an approval, so a replay decides alike.
import type { JsonObject } from '../../common/json.js';
import type { Decision } from '../../engine/decision-types.js';
import type { PendingDecision } from '../../engine/signal.js';
import { StageloopError } from '../../common/stageloop-error.js';
import type { ChatMessage } from '../../model/types.js';
import type { McpCallContext } from './call-context.js';

/** Whether a server's sampling requests reach the run's model: at once (default), after a person's yes, or never. */
export type McpSamplingPolicy = 'allow' | 'ask' | 'deny';

export const SAMPLING_POLICIES: readonly McpSamplingPolicy[] = ['allow', 'ask', 'deny'];

export const SAMPLING = 'sampling';

/** The id of a call's `ordinal`th sampling request (1-based); act prefixes it with the call's id (`call_1/sampling-1`). */
export function samplingId(ordinal: number): string {
  return `${SAMPLING}-${ordinal}`;
}

/** The answers a call was given at earlier pauses (questions and sampling requests): a pause carries them on. */
export function answeredSoFar(given: Readonly<Record<string, Decision>>): Record<string, Decision> {
  return Object.fromEntries(
    Object.entries(given).filter(([id]) => id.startsWith('elicitation-') || id.startsWith(`${SAMPLING}-`)),
  );
}

/**
 * True when the run's model may answer this request now. Throws (the server gets the error) when the policy denies it,
 * a person rejected it, or nobody can be asked; false after pausing the call for a person's decision.
 */
export function samplingAllowed(
  policy: McpSamplingPolicy | undefined,
  ordinal: number,
  request: { messages: readonly ChatMessage[]; maxTokens: number },
  call: McpCallContext,
  given: Readonly<Record<string, Decision>>,
  personThere: boolean,
): boolean {
  if (policy === undefined || policy === 'allow') return true;
  const refused = `stageloop refused the sampling request of "${call.server}"`;
  if (policy === 'deny') throw new StageloopError('tool', `${refused}: its config says "sampling": "deny"`);
  const decision = given[samplingId(ordinal)];
  if (decision !== undefined) {
    if (decision.approve) return true;
    throw new StageloopError(
      'tool',
      `${refused}: a person rejected it${decision.message === undefined ? '' : ` (${decision.message})`}`,
    );
  }
  if (!personThere) throw new StageloopError('tool', `${refused}: it needs a person's approval and this run has none`);
  call.pause(samplingPending(ordinal, request, call, answeredSoFar(given)));
  return false;
}

/** The decision the run pauses with: the server, the call, and the messages the run's model would read. */
function samplingPending(
  ordinal: number,
  request: { messages: readonly ChatMessage[]; maxTokens: number },
  call: McpCallContext,
  earlier: Readonly<Record<string, Decision>>,
): PendingDecision {
  // The server's system prompt is the first message: a person reads what the model would.
  const messages = request.messages.map((message) => ({ role: message.role, content: message.content }));
  const last = messages.at(-1)?.content ?? '';
  return {
    id: samplingId(ordinal),
    kind: SAMPLING,
    tool: call.tool,
    arguments: call.arguments,
    server: call.server,
    message: last,
    reason: `the MCP server "${call.server}" asks the run's model during ${call.tool}: ${last.slice(0, 200)}`,
    messages,
    maxTokens: request.maxTokens,
    // A call that asks twice is run again with both answers: the earlier ones ride with the pending decision.
    answered: earlier as JsonObject,
  };
}
