// `stageloop submit --redis URL [--id ID] [--queue NAME] [--detach] [run flags] "TASK"`: queues one run, prints its
// id, then follows it live through BullMQ's own events (progress, completed, failed) until it ends.
import { messageOf } from '../../src/common/error-message.js';
import { loadOptional, MissingPackageError, optionalParts } from '../../src/common/optional-package.js';
import type { JsonObject } from '../../src/common/json.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { checkRedisReachable, connectRedis } from '../../src/store/redis-connection.js';
import type { RunJobResult } from '../../src/workers/process-run.js';
import { defaultQueueName, enqueueRun } from '../../src/workers/run-job.js';
import { recordOf } from '../recipe.js';
import { parseRunFlags, UsageError, type RunFlags } from './args.js';
import { recipeFromFlags } from './recipe-flags.js';
import { exitCodeOf } from './output.js';
import { progressPrinter } from './progress.js';
import { eventsOfProgress } from '../../src/workers/progress.js';
import type { CliStreams } from './run-command.js';
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

/** Takes submit's own flags out of argv; the rest are "stageloop run" flags and the task. */
export function parseSubmitFlags(argv: string[]): SubmitFlags | 'help' {
  const own: Record<string, string | true> = {};
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const [flag, inline] = argv[index]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === '--detach') own.detach = true;
    else if (flag === '--redis' || flag === '--queue' || flag === '--id') {
      const value = inline ?? argv[++index];
      if (value === undefined || value === '') throw new UsageError(`${flag} needs a value: run "stageloop submit --help" for the options`);
      own[flag.slice(2)] = value;
    } else rest.push(argv[index]!);
  }
  if (rest.includes('--help') || rest.includes('-h')) return 'help';
  if (typeof own.redis !== 'string') throw new UsageError('stageloop submit needs --redis URL, e.g. --redis redis://127.0.0.1:6379');
  const run = parseRunFlags(rest);
  if (run === 'help') return 'help';
  return { redis: own.redis, queue: typeof own.queue === 'string' ? own.queue : defaultQueueName, detach: own.detach === true, run, ...(typeof own.id === 'string' && { id: own.id }) };
}

/** What a worker needs to build the run: its recipe (the config file's secrets as `${VAR}` templates). */
async function settingsOf(run: RunFlags): Promise<JsonObject> {
  const { recipe } = await recipeFromFlags(run, process.env);
  return recordOf(recipe);
}

export async function submitCommand(argv: string[], streams: CliStreams): Promise<number> {
  const flags = parseSubmitFlags(argv);
  if (flags === 'help') {
    streams.stdout.write(`${submitUsage}\n`);
    return 0;
  }
  // Made before Redis is reached: a bad flag or file is reported at once.
  const settings = await settingsOf(flags.run);
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
  const events = flags.detach ? undefined : new QueueEvents(flags.queue, { connection: await connectRedis(flags.redis, { patient: true }) });
  try {
    await events?.waitUntilReady();
    const { runId } = await enqueueRun(queue, { task: flags.run.task, settings, ...(flags.id !== undefined && { runId: flags.id }) });
    streams.stdout.write(`${runId}\n`);
    if (events === undefined) return 0;
    const show = flags.run.quiet || flags.run.json ? undefined : progressPrinter(streams.stderr, { color: false });
    events.on('progress', ({ jobId, data }) => {
      if (jobId === runId && show !== undefined) for (const event of eventsOfProgress(data)) show({ runId, ...event } as RunEvent);
    });
    const job = (await queue.getJob(runId))!;
    try {
      const result = (await job.waitUntilFinished(events)) as RunJobResult;
      if (flags.run.json) streams.stdout.write(`${JSON.stringify(result)}\n`);
      else if (result.answer !== null) streams.stdout.write(`${terminalSafe(result.answer)}\n`);
      if (!flags.run.quiet && !flags.run.json) streams.stderr.write(`run ${runId} ${result.status} after ${result.iterations} iterations, ${result.tokens} tokens${result.resumed ? ' (resumed by another worker)' : ''}\n`);
      return exitCodeOf(result.status as Parameters<typeof exitCodeOf>[0]);
    } catch (error) {
      streams.stderr.write(`stageloop: run ${runId} failed: ${terminalSafe(messageOf(error))}\n`);
      return 1;
    }
  } finally {
    await Promise.all([queue.close(), events?.close()]);
  }
}
