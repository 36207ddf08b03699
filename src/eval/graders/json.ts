// JSON graders: the output is valid against a JSON Schema, and the output contains an expected JSON subset.
import { z } from 'zod';
import type { JsonObject, JsonValue } from '../../common/json.js';
import { StageloopError } from '../../common/stageloop-error.js';
import { sameNumber } from './number.js';
import { preview, type Grade, type Grader } from './types.js';

/** Passes when the output (structured output, or the answer as JSON) is valid against the JSON Schema. */
export function jsonSchemaValid(schema: JsonObject, options: { threshold?: number } = {}): Grader {
  let zodSchema: z.ZodType;
  try {
    zodSchema = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new StageloopError(
      'usage',
      `json-schema grader: the schema is not one stageloop can read (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
    );
  }
  return {
    name: 'json-schema',
    ...options,
    grade: ({ output }) => {
      if (output === undefined) return { score: 0, reason: 'the answer is not JSON' };
      const checked = zodSchema.safeParse(output);
      if (checked.success) return { score: 1, reason: 'the output is valid against the schema' };
      const issue = checked.error.issues[0]!;
      return {
        score: 0,
        reason: `the output is not valid against the schema: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`,
      };
    },
  };
}

/** Where `expected` is not inside `actual` (objects: every key; arrays: same length, item by item), or undefined. */
function mismatch(expected: JsonValue, actual: unknown, path: string): string | undefined {
  if (expected === null || typeof expected !== 'object') {
    if (typeof expected === 'number' && typeof actual === 'number')
      return sameNumber(expected, actual) ? undefined : `${path} is ${actual}, expected ${expected}`;
    return expected === actual
      ? undefined
      : `${path} is ${preview(actual ?? 'missing', 40)}, expected ${preview(expected, 40)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path} is not an array`;
    if (actual.length !== expected.length) return `${path} has ${actual.length} items, expected ${expected.length}`;
    for (const [index, item] of expected.entries()) {
      const found = mismatch(item, actual[index], `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return `${path} is not an object`;
  for (const [key, value] of Object.entries(expected)) {
    if (!Object.hasOwn(actual, key)) return `${path}.${key} is missing`;
    const found = mismatch(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}

/** The score of a subset match: 1 when every expected field is there with its value; `where` names the value in reasons. */
export function jsonSubsetScore(expected: JsonValue, actual: unknown, where: string): Grade {
  if (actual === undefined) return { score: 0, reason: `${where} is not JSON` };
  const found = mismatch(expected, actual, '$');
  return found === undefined
    ? { score: 1, reason: `${where} contains ${preview(expected)}` }
    : { score: 0, reason: `${where} does not match: ${found}` };
}

/** Passes when the output holds every field of `expected` with the same value (extra fields allowed). */
export function jsonSubset(expected: JsonValue, options: { threshold?: number } = {}): Grader {
  return { name: 'json-subset', ...options, grade: ({ output }) => jsonSubsetScore(expected, output, 'the output') };
}
