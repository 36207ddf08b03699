// Structured output: the JSON schema to send, the instructions for servers without json_schema, and local validation.
import { z } from 'zod';
import type { JsonObject, JsonValue } from '../common/json.js';
import { ModelError, type ChatRequest, type ChatResponse, type ResponseFormat } from './types.js';
import { sumUsage } from './usage-estimate.js';
import { messageOf } from '../common/error-message.js';

function isZodSchema(schema: ResponseFormat['schema']): schema is z.ZodType {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    '_zod' in schema &&
    typeof (schema as { safeParse?: unknown }).safeParse === 'function'
  );
}

export function jsonSchemaOf(format: ResponseFormat): JsonObject {
  if (!isZodSchema(format.schema)) return format.schema;
  const schema = z.toJSONSchema(format.schema, { target: 'draft-7' }) as JsonObject;
  delete schema.$schema;
  return schema;
}

/**
 * OpenAI strict mode needs every object closed (`additionalProperties: false`) and every property required; send
 * strict only when that holds (optional fields should be `.nullable()` where strict mode matters). Only subschemas
 * are checked: a `default`, `enum` or `const` value, or a property named "properties", is data, not a schema.
 */
export function isStrictCompatible(schema: JsonValue | undefined): boolean {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return true;
  const properties = asObject(schema.properties);
  if (schema.type === 'object' || properties) {
    if (schema.additionalProperties !== false) return false;
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (properties && !Object.keys(properties).every((key) => required.includes(key))) return false;
  }
  const children: Array<JsonValue | undefined> = [
    ...Object.values(properties ?? {}),
    ...Object.values(asObject(schema.$defs) ?? {}),
    ...Object.values(asObject(schema.definitions) ?? {}),
    ...(Array.isArray(schema.items) ? schema.items : [schema.items]),
    schema.not,
    ...['anyOf', 'oneOf', 'allOf', 'prefixItems'].flatMap((key) => {
      const list = schema[key];
      return Array.isArray(list) ? list : [];
    }),
  ];
  return children.every(isStrictCompatible);
}

function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** The system-prompt text for servers that cannot constrain the output themselves. */
export function structuredOutputInstructions(format: ResponseFormat): string {
  return (
    `Reply with only one JSON value (no prose, no code fences) that matches this JSON schema named "${format.name}":\n` +
    JSON.stringify(jsonSchemaOf(format))
  );
}

/** A validator for the format: the zod schema itself, or one built from the JSON schema (none if zod cannot read it). */
function validatorOf(format: ResponseFormat): z.ZodType | undefined {
  if (isZodSchema(format.schema)) return format.schema;
  try {
    return z.fromJSONSchema(format.schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return undefined;
  }
}

/** Removes a Markdown code fence around the JSON and any text before or after it. */
export function stripCodeFences(text: string): string {
  const trimmed = text.trim();
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)\n?\s*```/.exec(trimmed);
  if (fenced?.[1] !== undefined) return fenced[1].trim();
  return trimmed;
}

export type ParseOutcome = { ok: true; value: unknown } | { ok: false; problem: string };

/** Parses and validates a reply's content against the format. */
export function parseStructuredContent(content: string, format: ResponseFormat): ParseOutcome {
  const text = stripCodeFences(content);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `the reply is not valid JSON (${messageOf(error)})` };
  }
  const validator = validatorOf(format);
  if (validator === undefined) return { ok: true, value };
  const result = validator.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problem: `the JSON does not match the schema:\n${z.prettifyError(result.error)}` };
}

/** The user message of the one repair attempt: shows the model what was wrong. */
export function repairMessage(problem: string): string {
  return `Your previous reply could not be used: ${problem}\nReply again with only the corrected JSON value.`;
}

type StructuredReply = Omit<ChatResponse, 'latencyMs'>;

/**
 * Fills reply.parsed from its structured output. Wrong JSON gets one repair call (the request without its tools, the
 * bad reply and what was wrong with it); its usage is added to the reply's, and a second failure is the error.
 */
export async function settleStructuredOutput(
  request: ChatRequest,
  reply: StructuredReply,
  send: (repairRequest: ChatRequest) => Promise<StructuredReply>,
): Promise<void> {
  const format = request.responseFormat!;
  const first = parseStructuredContent(reply.content, format);
  if (first.ok) {
    reply.parsed = first.value;
    return;
  }
  const repairRequest: ChatRequest = {
    ...request,
    messages: [
      ...request.messages,
      { role: 'assistant', content: reply.content },
      { role: 'user', content: repairMessage(first.problem) },
    ],
  };
  delete repairRequest.tools;
  delete repairRequest.toolChoice;
  const repaired = await send(repairRequest);
  const second = parseStructuredContent(repaired.content, format);
  reply.usage = sumUsage(reply.usage, repaired.usage);
  if (!second.ok)
    throw new ModelError(
      'invalid_response',
      `structured output "${format.name}" still invalid after one repair attempt: ${second.problem}`,
      { retryable: false },
    );
  reply.content = repaired.content;
  reply.finishReason = repaired.finishReason;
  reply.parsed = second.value;
}
