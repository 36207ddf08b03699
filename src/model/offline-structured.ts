// The offline model's structured output: a number, or an object of numbers, made from the number its answer ended
// with. Enough to show typed output with no model server; anything richer is refused as a real model might fail.
import { z } from 'zod';
import type { JsonObject } from '../common/json.js';
import { lastNumber } from './offline-arithmetic.js';
import type { ResponseFormat } from './types.js';

type JsonSchemaNode = {
  type?: unknown;
  properties?: Record<string, JsonSchemaNode>;
  required?: unknown;
  enum?: unknown;
};

/** The value for `format` from the work text's last answer ("Final answer given: 6 * 7 = 42"), or undefined. */
export function offlineStructured(format: ResponseFormat, work: string): unknown {
  const answer = /Final answer given:\n([\s\S]*)$/.exec(work)?.[1] ?? work;
  const found = lastNumber(answer);
  if (found === undefined) return undefined;
  const number = Number(found);
  const schema = jsonSchemaOf(format.schema);
  if (schema === undefined) return undefined;
  return valueFor(schema, number, answer.trim());
}

function jsonSchemaOf(schema: ResponseFormat['schema']): JsonSchemaNode | undefined {
  if (schema instanceof z.ZodType) {
    try {
      return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode;
    } catch {
      return undefined;
    }
  }
  return schema as JsonObject as JsonSchemaNode;
}

function valueFor(schema: JsonSchemaNode, number: number, text: string): unknown {
  const type = schema.type;
  if (type === 'number') return number;
  if (type === 'integer') return Number.isInteger(number) ? number : undefined;
  if (type === 'string') return text;
  if (type !== 'object' || schema.properties === undefined) return undefined;
  const names =
    Array.isArray(schema.required) && schema.required.length > 0
      ? (schema.required as string[])
      : Object.keys(schema.properties);
  const value: Record<string, unknown> = {};
  for (const name of names) {
    const property = schema.properties[name];
    const filled = property === undefined ? undefined : valueFor(property, number, text);
    if (filled === undefined) return undefined;
    value[name] = filled;
  }
  return value;
}
