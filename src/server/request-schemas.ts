// What the API accepts, checked with zod; a bad value is answered with one line naming the field.
import { z } from 'zod';
import { HttpError } from './errors.js';

export const approveToolsSchema = z.union([z.array(z.string().min(1)).min(1), z.literal('all')], { error: 'approveTools must be a list of tool names or "all"' });

const runOptionsSchema = z.strictObject({
  maxIterations: z.int().min(1).max(1000).optional(),
  maxTokens: z.int().min(1).optional(),
  maxCostUsd: z.number().positive().optional(),
  timeoutSeconds: z.number().positive().max(86_400).optional(),
  /** Tools whose calls wait for a person's decision (docs/approvals.md): the run pauses `interrupted`. */
  approveTools: approveToolsSchema.optional(),
});

export const startRunSchema = z.strictObject({
  task: z.string().trim().min(1, 'the task must not be empty').max(100_000),
  pipeline: z.string().min(1).optional(),
  session: z.string().min(1).max(200).optional(),
  options: runOptionsSchema.optional(),
});

export type StartRunBody = z.infer<typeof startRunSchema>;
export type RunRequestOptions = z.infer<typeof runOptionsSchema>;

export const decisionsSchema = z.strictObject({
  decisions: z
    .array(z.strictObject({ callId: z.string().min(1), approve: z.boolean(), reason: z.string().max(2_000).optional() }))
    .min(1, 'give at least one decision'),
});

export type DecisionsBody = z.infer<typeof decisionsSchema>;

export const listQuerySchema = z.strictObject({
  status: z.enum(['running', 'completed', 'stopped', 'failed', 'cancelled', 'interrupted']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/** `Last-Event-ID` (or `?after=`): the seq of the last event the reader has; 0 for all. */
export function afterSeqOf(header: string | undefined, query: string | undefined): number {
  const given = header ?? query;
  if (given === undefined || given === '') return 0;
  if (!/^\d{1,15}$/.test(given)) throw new HttpError(400, 'invalid_last_event_id', `Last-Event-ID must be an event seq (a whole number), got "${given.slice(0, 40)}"`);
  return Number(given);
}

/** Parses with a schema; the first problem becomes a 400 that names the field. */
export function parseWith<Output>(schema: z.ZodType<Output>, value: unknown): Output {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
  throw new HttpError(400, 'invalid_request', `${field}: ${issue.message}`);
}
