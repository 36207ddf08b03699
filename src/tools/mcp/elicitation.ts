// A server's question for a person (elicitation) as a decision of the tool gate: the pending decision of kind
// `elicitation` that carries the server's form, the answer a person's decision gives back to the server, and the check
// of an answer against the form (the CLI, HTTP and the console refuse a wrong one before the run resumes).
import type { JsonObject, JsonValue } from '../../common/json.js';
import type { Decision } from '../../engine/decision-types.js';
import type { PendingDecision } from '../../engine/signal.js';
import type { McpElicitation, McpElicitationAnswer } from './client-requests.js';
import { loadSdk } from './sdk.js';
import { StageloopError } from '../../common/stageloop-error.js';

export const ELICITATION = 'elicitation';

/** What a rejection's message says to cancel the form rather than decline it (MCP tells the two apart). */
export const CANCEL_MESSAGE = 'cancel';

/** The id of a call's `ordinal`th question (1-based); act prefixes it with the call's id (`call_1/elicitation-1`). */
export function elicitationId(ordinal: number): string {
  return `elicitation-${ordinal}`;
}

/** The decision the run pauses with: the server's message and form (or URL), and the answers given to the call so far. */
export function elicitationPending(
  ordinal: number,
  request: McpElicitation,
  where: { server: string; tool: string; arguments: string },
  earlier: Readonly<Record<string, Decision>>,
): PendingDecision {
  const url = 'url' in request && typeof request.url === 'string' ? request.url : undefined;
  const pending: PendingDecision = {
    id: elicitationId(ordinal),
    kind: ELICITATION,
    tool: where.tool,
    arguments: where.arguments,
    server: where.server,
    message: request.message,
    reason: `the MCP server "${where.server}" asks during ${where.tool}: ${request.message}`,
    // A call that asks twice is run again with both answers: the earlier ones ride with the pending decision.
    answered: earlier as JsonObject,
  };
  if (url !== undefined) return { ...pending, mode: 'url', url };
  const schema = 'requestedSchema' in request ? (request.requestedSchema as JsonObject) : { type: 'object' };
  return { ...pending, mode: 'form', requestedSchema: schema };
}

/** What the server gets for a person's decision: approve accepts (with the answer), reject declines, "cancel" cancels. */
export function elicitationAnswer(decision: Decision, request: McpElicitation): McpElicitationAnswer {
  if (!decision.approve) return { action: decision.message?.trim() === CANCEL_MESSAGE ? 'cancel' : 'decline' };
  if ('url' in request && typeof request.url === 'string') return { action: 'accept' };
  const given = 'arguments' in decision ? answerObject(decision.arguments) : {};
  return { action: 'accept', content: withDefaults(given ?? {}, schemaOf(request)) as McpElicitationAnswer['content'] };
}

/** Why this decision's answer does not fill the pending form (one line), or undefined when it does or is no answer. */
export async function elicitationProblem(item: PendingDecision, decision: Decision): Promise<string | undefined> {
  if (item.kind !== ELICITATION || !decision.approve || item.mode === 'url') return undefined;
  const schema = (item.requestedSchema ?? { type: 'object' }) as JsonObject;
  const text = 'arguments' in decision ? decision.arguments : {};
  const given = answerObject(text);
  if (given === undefined)
    return `the answer to ${item.id} must be a JSON object like {"name": "Ada"}, got ${String(text).slice(0, 80)}`;
  const { AjvJsonSchemaValidator } = await loadSdk();
  const checked = new AjvJsonSchemaValidator().getValidator(schema as never)(withDefaults(given, schema));
  if (checked.valid) return undefined;
  const fields = Object.keys((schema.properties ?? {}) as JsonObject);
  return `the answer to ${item.id} does not fill the server's form (${checked.errorMessage ?? 'invalid'}): its fields are ${fields.join(', ') || 'none'}`;
}

function answerObject(value: string | JsonObject): JsonObject | undefined {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as JsonObject) : undefined;
}

function schemaOf(request: McpElicitation): JsonObject {
  return 'requestedSchema' in request ? (request.requestedSchema as JsonObject) : {};
}

/** The form's defaults for the fields the answer leaves out (SEP-1034: a client fills them in). */
function withDefaults(given: JsonObject, schema: JsonObject): JsonObject {
  const filled: Record<string, JsonValue> = { ...given };
  for (const [name, field] of Object.entries((schema.properties ?? {}) as Record<string, JsonObject>))
    if (filled[name] === undefined && field.default !== undefined) filled[name] = field.default;
  return filled;
}

/** Checks each answer given to a pending elicitation against its form; throws an `invalid_decision` error naming the
 * first that does not fill it (the CLI, HTTP and the console call this before a run resumes). */
export async function checkElicitationAnswers(
  pending: readonly PendingDecision[],
  decisions: Readonly<Record<string, Decision>>,
): Promise<void> {
  for (const [id, decision] of Object.entries(decisions)) {
    const item = pending.find((each) => each.id === id);
    const problem = item === undefined ? undefined : await elicitationProblem(item, decision);
    if (problem !== undefined) throw new StageloopError('invalid_decision', problem);
  }
}
