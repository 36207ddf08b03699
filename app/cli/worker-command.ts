// `stageloop worker --redis URL [--concurrency N] [--queue NAME]`: runs submitted runs until SIGTERM or Ctrl-C. Each
// job's recipe (made by `submit` from its flags) says what the run is; secrets come from this worker's environment.
import { messageOf } from '../../src/common/error-message.js';
import type { JsonObject } from '../../src/common/json.js';
import { checkRedisUrl } from '../../src/store/redis-connection.js';
import { CalculatorWorkerHost, defaultCalculatorLimits } from '../../src/tools/calculator-host.js';
import type { RunJobData } from '../../src/workers/run-job.js';
import { startWorker } from '../../src/workers/worker.js';
import type { RunSummary } from '../../src/store/types.js';
import { assemble } from '../assemble.js';
import { makeRecipe, recipeOf, type RunRecipe, type RunRecipeInput } from '../recipe.js';
import { parseFlags } from './args.js';
import type { CommandIo, CommandModule } from './command.js';
import type { RunStore } from '../../src/store/types.js';
import { openRunStore } from '../store.js';
import { storeDisplayName } from '../../src/store/location.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { startCliTracing, type CliTracing } from './tracing.js';
import type { TraceMode } from './args.js';

export const workerUsage = `Usage: stageloop worker --redis URL [--store URL] [--concurrency N] [--queue NAME] [--trace otlp|console] [--no-recover]
Takes runs submitted with "stageloop submit" off the queue (default stageloop-runs) and records them in the Redis
store at URL, or in the store --store (or $STAGELOOP_STORE) names, e.g. postgres://USER@HOST:PORT/DATABASE. A worker that dies loses nothing: another resumes its runs within about 6 s (lock 5 s + stall check 1 s).
--trace traces every run it takes, as "stageloop run --trace" does, in the trace of whoever submitted it.
At start and every 10 s it also continues the store's other runs whose process died (started by "stageloop run" or
"serve": owner gone, lease expired; never one waiting for a person), each taken once; --no-recover leaves them.`;

export interface WorkerFlags {
  redis: string;
  /** The run store, when it is not the Redis store at --redis. */
  store?: string;
  concurrency: number;
  queue?: string;
  trace?: TraceMode;
  /** False with --no-recover. */
  recover: boolean;
}

export function parseWorkerFlags(argv: readonly string[]): WorkerFlags | 'help' {
  const options = {
    redis: { type: 'string' },
    store: { type: 'string' },
    concurrency: { type: 'string' },
    queue: { type: 'string' },
    trace: { type: 'string' },
    'no-recover': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values } = parseFlags('worker', argv, options, false);
  const trace = values.trace;
  if (trace !== undefined && trace !== 'otlp' && trace !== 'console')
    throw new StageloopError('usage', `--trace must be "otlp" or "console", got "${trace}"`);
  if (values.help) return 'help';
  if (values.redis === undefined)
    throw new StageloopError('usage', 'stageloop worker needs --redis URL, e.g. --redis redis://127.0.0.1:6379');
  const concurrency = values.concurrency === undefined ? 1 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new StageloopError('usage', `--concurrency must be a whole number >= 1, got "${values.concurrency}"`);
  try {
    checkRedisUrl(values.redis);
  } catch (error) {
    throw new StageloopError('usage', `--redis: ${messageOf(error)}`);
  }
  return {
    redis: values.redis,
    concurrency,
    recover: values['no-recover'] !== true,
    ...(values.store !== undefined && { store: values.store }),
    ...(values.queue !== undefined && { queue: values.queue }),
    ...(trace !== undefined && { trace }),
  };
}

/** A job's recipe, as submit-command.ts writes it. */
function jobRecipe(settings: JsonObject): RunRecipe {
  return makeRecipe(settings.recipe as RunRecipeInput, "the job's recipe");
}

/** Runs the worker until a signal stops it; resolves the exit code (1 when Redis cannot be reached at start). */
export const worker: CommandModule = { usage: () => workerUsage, run: (argv, io) => workerCommand(argv, io) };

export async function workerCommand(
  argv: readonly string[],
  io: CommandIo,
  stopped?: Promise<void>,
): Promise<number | 'help'> {
  const flags = parseWorkerFlags(argv);
  if (flags === 'help') return 'help';
  const { env, ...streams } = io;
  const calculatorHost = new CalculatorWorkerHost(defaultCalculatorLimits);
  const log = (line: string) => void streams.stderr.write(`${line}\n`);
  const tracing: CliTracing | undefined =
    flags.trace === undefined
      ? undefined
      : await startCliTracing(flags.trace, { traceContentFlag: false, env, stderr: streams.stderr });
  // A run another worker began is rebuilt from its recorded recipe; a new one from the job's.
  const prepare = async (job: RunJobData, recorded?: RunSummary) => {
    const assembled = await assemble(recorded ? recipeOf(recorded) : jobRecipe(job.settings), env, { calculatorHost });
    return {
      pipeline: assembled.pipeline,
      deps: tracing === undefined ? assembled.deps : tracing.instrument(assembled.deps),
      record: assembled.record,
      close: () => assembled.close(),
    };
  };
  const storeName = flags.store ?? env.STAGELOOP_STORE;
  let store: RunStore | undefined;
  try {
    store = storeName === undefined ? undefined : (await openRunStore(storeName, env)).store;
    let worker;
    try {
      worker = await startWorker({
        redis: flags.redis,
        concurrency: flags.concurrency,
        prepare,
        log,
        recover: flags.recover,
        ...(store !== undefined && { store }),
        ...(flags.queue !== undefined && { queue: flags.queue }),
      });
    } catch (error) {
      log(`stageloop: ${messageOf(error)}`);
      return 1;
    }
    log(
      `worker ${process.pid} taking runs from ${flags.redis} (concurrency ${flags.concurrency})${storeName === undefined ? '' : `, recording them in ${storeDisplayName({ path: storeName })}`}`,
    );
    await (stopped ??
      new Promise<void>((resolve) => ['SIGTERM', 'SIGINT'].forEach((signal) => process.once(signal, () => resolve()))));
    log('stopping: finishing the runs in flight');
    await worker.close();
    return 0;
  } finally {
    await calculatorHost.close();
    await store?.close().catch(() => undefined);
    await tracing?.finish();
  }
}
