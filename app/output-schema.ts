// A JSON Schema (given with --output-schema, or recorded with a run) as the zod schema the final-output stage uses.
import { z, type ZodType } from 'zod';
import type { JsonObject } from '../src/common/json.js';
import { messageOf } from '../src/common/error-message.js';
import { StageloopError } from '../src/common/stageloop-error.js';

/** A recorded or given JSON Schema as zod (zod 4's fromJSONSchema); one line when it is not one zod can read. */
export function schemaOfJson(json: JsonObject, where: string): ZodType {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new StageloopError('usage', `${where} is not a JSON Schema object`);
  try {
    return z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new StageloopError(
      'usage',
      `${where} is not a JSON Schema stageloop can use: ${messageOf(error).split('\n')[0]}`,
    );
  }
}
