// The job a queue carries for one run: its id (the BullMQ job id too, so a double submit is one run), the run's
// input, and JSON settings the worker's application turns into a pipeline and deps. Checked before anything runs.
import { StageloopError } from '../common/stageloop-error.js';
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { z } from 'zod';
import type { JsonObject } from '../common/json.js';
import type { RunInput } from '../engine/state.js';
import { currentTraceHeaders, type TraceHeaders } from '../tracing/trace-context.js';

export const defaultQueueName = 'stageloop-runs';

export interface RunJobData {
  runId: string;
  input: RunInput;
  /** What the worker needs to assemble the run (pipeline name, model, limits); never secrets: jobs sit in Redis. */
  settings: JsonObject;
  /** The submitter's W3C trace context: the worker's run joins the submitter's trace. */
  trace?: TraceHeaders;
}

/** Run ids become BullMQ job ids and Redis key tags: no ':' (BullMQ's separator), no braces, no spaces. */
const runIdPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

const jsonObject = z.record(z.string(), z.json());
const jobSchema = z.strictObject({
  runId: z.string().regex(runIdPattern, 'a run id is 1-128 letters, digits, "_", "." or "-"'),
  input: z.object({
    task: z.string().min(1, 'the task is empty'),
    options: jsonObject.optional(),
    session: z.string().min(1).optional(),
    user: z.string().min(1).optional(),
  }),
  settings: jsonObject,
  trace: z.object({ traceparent: z.string().optional(), tracestate: z.string().optional() }).optional(),
});

export class RunJobError extends StageloopError {
  override readonly name = 'RunJobError';
  constructor(message: string) {
    super('usage', message);
  }
}

/** The job's data as a RunJobData, or a RunJobError naming what is wrong with it (the job then fails for good). */
export function parseRunJob(jobId: string | undefined, data: unknown): RunJobData {
  const parsed = jobSchema.safeParse(data);
  if (!parsed.success) {
    const problem = parsed.error.issues[0]!;
    const where = problem.path.length > 0 ? problem.path.join('.') : 'the payload';
    throw new RunJobError(
      `malformed job ${jobId ?? '(no id)'}: ${where}: ${problem.message}; enqueue runs with enqueueRun() or "stageloop submit"`,
    );
  }
  if (jobId !== undefined && parsed.data.runId !== jobId)
    throw new RunJobError(`malformed job ${jobId}: its runId "${parsed.data.runId}" is not its job id`);
  return parsed.data as RunJobData;
}

export interface EnqueueInput {
  task: string;
  /** The run's id and job id (default: a new UUID); submitting the same id again adds nothing. */
  runId?: string;
  options?: JsonObject;
  /** The session the run is a turn of, and its user (checked by the history stage as the CLI checks them). */
  session?: string;
  user?: string;
  settings?: JsonObject;
}

export interface EnqueueOptions {
  /** How many times a job whose run failed to record (Redis lost, say) is tried again (default 5). */
  attempts?: number;
}

/** Adds a run to the queue and resolves its id; the job id is the run id, so adding it twice is one run. */
export async function enqueueRun(
  queue: Queue,
  input: EnqueueInput,
  options: EnqueueOptions = {},
): Promise<{ runId: string }> {
  const runId = input.runId ?? randomUUID();
  const data: RunJobData = {
    runId,
    input: {
      task: input.task,
      ...(input.options && { options: input.options }),
      ...(input.session !== undefined && { session: input.session }),
      ...(input.user !== undefined && { user: input.user }),
    },
    settings: input.settings ?? {},
  };
  const trace = currentTraceHeaders();
  if (trace !== undefined) data.trace = trace;
  parseRunJob(runId, data);
  await queue.add('run', data, {
    jobId: runId,
    attempts: options.attempts ?? 5,
    backoff: { type: 'exponential', delay: 500 },
    removeOnComplete: { age: 86_400 },
    removeOnFail: { age: 7 * 86_400 },
  });
  return { runId };
}
