// The typed final output of a run: the plain JSON a final-output stage kept, parsed by the caller's schema.
import type { z } from 'zod';
import type { RunState } from './state.js';

/** `outputOf(result, schema)`: the run's output parsed by `schema` (transforms applied), or undefined when it made none. */
export function outputOf<Schema extends z.ZodType>(
  result: { state: RunState },
  schema: Schema,
): z.output<Schema> | undefined {
  const value = result.state.output;
  return value === undefined ? undefined : schema.parse(value);
}
