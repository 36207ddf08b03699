// What the API accepts, checked with zod; a bad value is answered with one line naming the field.
import { z } from 'zod';
import { checkName } from '../sessions/types.js';
import { StageloopError } from '../common/stageloop-error.js';
import { guardSettingsObject, withGuardRules } from '../engine/guard-settings.js';

/** Tool calls that wait for a person's decision: tool names, or "all" (the protocol adapters take it too). */
export const approveToolsSchema = z.union([
  z.array(z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool name')).min(1),
  z.literal('all'),
]);

/** The run's limits and guards, as `stageloop run` takes them, but none switched off (0) and a server's caps on turns and time. */
const { shape: guard } = guardSettingsObject;
const runOptionsSchema = withGuardRules(
  z
    .strictObject({
      ...guardSettingsObject.omit({ onRepeat: true, noGuards: true }).shape,
      maxIterations: guard.maxIterations.unwrap().max(1000, 'must be at most 1000').optional(),
      timeoutSeconds: guard.timeoutSeconds.unwrap().max(86_400, 'must be at most 86400 seconds (a day)').optional(),
    })
    .superRefine((options, context) => {
      for (const [field, value] of Object.entries(options)) {
        if (value === 0)
          context.addIssue({
            code: 'custom',
            path: [field],
            message: 'must be above 0: a request cannot switch a guard off',
          });
      }
    }),
);

/** A session or user name, by the rule the CLI applies (never a path). */
const plainName = (kind: 'session' | 'user') =>
  z.string().superRefine((value, context) => {
    try {
      checkName(kind, value);
    } catch {
      context.addIssue({
        code: 'custom',
        message: `${JSON.stringify(value.slice(0, 80))} is not a usable ${kind} name: use letters, digits, ".", "_" or "-" (at most 64)`,
      });
    }
  });

/** A name of an agent of the server's config file (POST /v1/runs, /v1/chat, /v1/chat/completions, A2A metadata). */
export const agentNameSchema = z.string().min(1).max(64);

/** The recipe fields a client may set (the server's own model, tools and MCP servers are not the client's to choose). */
export const startRunSchema = z
  .strictObject({
    task: z.string().trim().min(1, 'the task must not be empty').max(100_000),
    pipeline: z.string().min(1).optional(),
    /** An agent of the server's config file: the run is that agent (its pipeline, instructions and tools). */
    agent: agentNameSchema.optional(),
    session: plainName('session').optional(),
    user: plainName('user').optional(),
    options: runOptionsSchema.optional(),
    /** Tool calls that wait for a decision (POST /v1/runs/:id/decisions): names, or "all". */
    approveTools: approveToolsSchema.optional(),
    /** A JSON Schema the final answer must match. */
    outputSchema: z.record(z.string(), z.json()).optional(),
  })
  .refine((body) => body.user === undefined || body.session !== undefined, {
    message: 'user names whose session a run is a turn of: give session too',
    path: ['user'],
  })
  .refine(
    (body) =>
      body.session !== undefined ||
      (body.options?.sessionMaxTokens === undefined && body.options?.sessionMaxCostUsd === undefined),
    { message: 'a session budget caps the turns of a session: give session too', path: ['options'] },
  );

export type StartRunBody = z.infer<typeof startRunSchema>;
export type RunRequestOptions = z.infer<typeof runOptionsSchema>;

export const decisionsSchema = z.strictObject({
  decisions: z
    .array(
      z
        .strictObject({
          callId: z.string().min(1),
          approve: z.boolean(),
          /** A rejection's message: the model reads it. */
          reason: z.string().max(2_000).optional(),
          /** An approval of the call with these arguments instead (JSON text or an object; validated again). */
          arguments: z.union([z.string().max(100_000), z.record(z.string(), z.json())]).optional(),
        })
        .refine((decision) => decision.approve || decision.arguments === undefined, {
          message: 'arguments go with an approval, not a rejection',
          path: ['arguments'],
        }),
    )
    .min(1, 'give at least one decision'),
});

export type DecisionsBody = z.infer<typeof decisionsSchema>;

export const listQuerySchema = z.strictObject({
  status: z.enum(['running', 'completed', 'stopped', 'failed', 'cancelled', 'interrupted']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  /** The `next` of the previous page: the id of the last run it listed. */
  before: z.string().min(1).max(200).optional(),
});

/** `Last-Event-ID` (or `?after=`): the seq of the last event the reader has; 0 for all. */
export function afterSeqOf(header: string | undefined, query: string | undefined): number {
  const given = header ?? query;
  if (given === undefined || given === '') return 0;
  if (!/^\d{1,15}$/.test(given))
    throw new StageloopError(
      'usage',
      `Last-Event-ID must be an event seq (a whole number), got "${given.slice(0, 40)}"`,
    );
  return Number(given);
}

/** Parses with a schema; the first problem becomes a 400 that names the field. */
export function parseWith<Output>(schema: z.ZodType<Output>, value: unknown): Output {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
  throw new StageloopError('usage', `${field}: ${issue.message}`);
}
