// `stageloop submit --redis URL [--id ID] [--queue NAME] [--detach] [run flags] "TASK"`: queues one run, prints its
// id, then follows it live through BullMQ's own events (progress, completed, failed) until it ends.
import { messageOf } from '../../src/common/error-message.js';
import { loadOptional, MissingPackageError, optionalParts } from '../../src/common/optional-package.js';
import type { JsonObject } from '../../src/common/json.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { checkRedisReachable, connectRedis } from '../../src/store/redis-connection.js';
import type { RunJobResult } from '../../src/workers/process-run.js';
import { defaultQueueName, enqueueRun } from '../../src/workers/run-job.js';
import { recordOf, runInputOf } from '../recipe.js';
import type { RunInput } from '../../src/engine/state.js';
import { parseFlags, runFlagsOf, runOptions, type RunFlags } from './args.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { recipeFromFlags } from './recipe-flags.js';
import { exitCodeOf } from './output.js';
import { progressPrinter } from './progress.js';
import { eventsOfProgress } from '../../src/workers/progress.js';
import type { CommandIo, CommandModule } from './command.js';
import type { Environment } from '../../src/model/config.js';
import { terminalSafe } from './terminal-text.js';

export const submitUsage = `Usage: stageloop submit --redis URL [--id ID] [--queue NAME] [--detach] [options of "stageloop run"] "TASK"
Queues a run for "stageloop worker", prints its id, and follows it until it ends (--detach: return at once).
--id ID names the run (and its job): submitting the same id again is the same run.`;

export interface SubmitFlags {
  redis: string;
  queue: string;
  detach: boolean;
  id?: string;
  run: RunFlags;
}

const submitOptions = {
  ...runOptions,
  redis: { type: 'string' },
  queue: { type: 'string' },
  id: { type: 'string' },
  detach: { type: 'boolean' },
} as const;

/** Submit's own flags beside the flags of "stageloop run" and the task, in one parse. */
export function parseSubmitFlags(argv: readonly string[]): SubmitFlags | 'help' {
  const { values, positionals } = parseFlags('submit', argv, submitOptions);
  if (values.help) return 'help';
  for (const flag of ['redis', 'queue', 'id'] as const) {
    if (values[flag] === '')
      throw new StageloopError('usage', `--${flag} needs a value: run "stageloop submit --help" for the options`);
  }
  if (values.redis === undefined)
    throw new StageloopError('usage', 'stageloop submit needs --redis URL, e.g. --redis redis://127.0.0.1:6379');
  const run = runFlagsOf(values, positionals);
  return {
    redis: values.redis,
    queue: values.queue ?? defaultQueueName,
    detach: values.detach ?? false,
    run,
    ...(values.id !== undefined && { id: values.id }),
  };
}

/** What a worker needs to build the run: its recipe (the config file's secrets as `${VAR}` templates). */
async function jobOf(run: RunFlags, env: Environment, cwd: string): Promise<{ input: RunInput; settings: JsonObject }> {
  const { recipe } = await recipeFromFlags(run, env, cwd);
  return { input: runInputOf(run.task, recipe), settings: recordOf(recipe) };
}

export const submit: CommandModule = { usage: () => submitUsage, run: submitCommand };

export async function submitCommand(argv: readonly string[], io: CommandIo): Promise<number | 'help'> {
  const flags = parseSubmitFlags(argv);
  if (flags === 'help') return 'help';
  const streams = io;
  // Made before Redis is reached: a bad flag or file is reported at once.
  const { input, settings } = await jobOf(flags.run, io.env, io.cwd);
  try {
    await checkRedisReachable(flags.redis);
  } catch (error) {
    if (error instanceof MissingPackageError) throw error;
    streams.stderr.write(`stageloop: ${messageOf(error)}\n`);
    return 1;
  }
  const { Queue, QueueEvents } = await loadOptional('stageloop submit', optionalParts.workers, () => import('bullmq'));
  const queue = new Queue(flags.queue, { connection: await connectRedis(flags.redis, { patient: true }) });
  // Listening starts before the job is added, so no event of the run is missed.
  const events = flags.detach
    ? undefined
    : new QueueEvents(flags.queue, { connection: await connectRedis(flags.redis, { patient: true }) });
  try {
    await events?.waitUntilReady();
    const { runId } = await enqueueRun(queue, {
      ...input,
      settings,
      ...(flags.id !== undefined && { runId: flags.id }),
    });
    streams.stdout.write(`${runId}\n`);
    if (events === undefined) return 0;
    const show = flags.run.quiet || flags.run.json ? undefined : progressPrinter(streams.stderr, { color: false });
    events.on('progress', ({ jobId, data }) => {
      if (jobId === runId && show !== undefined)
        for (const event of eventsOfProgress(data)) show({ runId, ...event } as RunEvent);
    });
    const job = (await queue.getJob(runId))!;
    try {
      const result = (await job.waitUntilFinished(events)) as RunJobResult;
      if (flags.run.json) streams.stdout.write(`${JSON.stringify(result)}\n`);
      else if (result.answer !== null) streams.stdout.write(`${terminalSafe(result.answer)}\n`);
      if (!flags.run.quiet && !flags.run.json) streams.stderr.write(finishedLine(runId, result));
      return exitCodeOf(result.status as Parameters<typeof exitCodeOf>[0]);
    } catch (error) {
      streams.stderr.write(`stageloop: run ${runId} failed: ${terminalSafe(messageOf(error))}\n`);
      return 1;
    }
  } finally {
    await Promise.all([queue.close(), events?.close()]);
  }
}

/** The line after a submitted run ends: "run R completed after 1 iteration, 151 tokens". */
export function finishedLine(
  runId: string,
  result: Pick<RunJobResult, 'status' | 'iterations' | 'tokens' | 'resumed'>,
): string {
  const iterations = `${result.iterations} ${result.iterations === 1 ? 'iteration' : 'iterations'}`;
  return `run ${runId} ${result.status} after ${iterations}, ${result.tokens} tokens${result.resumed ? ' (resumed by another worker)' : ''}\n`;
}
