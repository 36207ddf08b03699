// A server's JSON Schema, twice: sent to the model as it is, and checked locally before a call leaves the process.
import { z } from 'zod';
import type { jsonSchemaValidator, JsonSchemaType } from '@modelcontextprotocol/client';
import type { JsonObject } from '../../common/json.js';
import type { ToolParameters } from '../define-tool.js';

/** The schema for the model: `$schema` dropped (providers reject it), `properties` present (some require it). */
export function modelSchema(inputSchema: Readonly<Record<string, unknown>>): JsonObject {
  const { $schema: _dialect, ...rest } = inputSchema;
  const schema = { type: 'object', ...rest } as JsonObject;
  if (schema.properties === undefined) schema.properties = {};
  return schema;
}

const anyObject = z.looseObject({});

/**
 * A zod object for the executor that accepts exactly what the JSON Schema accepts: the check is the JSON Schema
 * validator's (ajv by default), not a conversion to zod, so every keyword the server uses is honoured. The validator
 * is compiled at the tool's first call: a server with thousands of tools lists in linear time, and unused tools cost
 * no compilation at all (compiling was ~0.3 ms a tool, the bulk of listing 5,000).
 */
export function argumentsSchema(schema: JsonObject, validator: jsonSchemaValidator): ToolParameters {
  let compiled: ReturnType<typeof validator.getValidator<Record<string, unknown>>> | undefined;
  return anyObject.superRefine((value, context) => {
    const validate = (compiled ??= validator.getValidator<Record<string, unknown>>(schema as JsonSchemaType));
    const checked = validate(value);
    if (!checked.valid)
      context.addIssue({ code: 'custom', message: checked.errorMessage.replace(/(^|, )data/g, '$1arguments') });
  });
}
