// A worker process for the tests: startWorker with the react pipeline, the loopback model and the logging tool.
// Settings come from the environment: REDIS_URL, QUEUE, STORE_URL (default: the Redis store at REDIS_URL), MODEL_URL, SIDE_EFFECT_LOG, CONCURRENCY, LOCK_MS, STALL_MS, TOOL_DELAY_MS.
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { openStore } from '../../src/store/location.js';
import { startWorker } from '../../src/workers/worker.js';
import { reactPipeline } from '../../pipelines/index.js';
import { recordTools } from './fleet.js';

const env = process.env;
const model = new OpenAIChatModel({
  baseUrl: env.MODEL_URL!,
  model: 'test-model',
  apiKey: 'sk-test',
  maxRetries: 2,
  timeoutMs: 10_000,
});
const tools = recordTools(env.SIDE_EFFECT_LOG!, Number(env.TOOL_DELAY_MS ?? 0));
const pipeline = reactPipeline();

const worker = await startWorker({
  redis: env.REDIS_URL!,
  ...(env.QUEUE !== undefined && { queue: env.QUEUE }),
  concurrency: Number(env.CONCURRENCY ?? 4),
  lockDurationMs: Number(env.LOCK_MS ?? 2_000),
  stalledIntervalMs: Number(env.STALL_MS ?? 500),
  ...(env.STORE_URL !== undefined && env.STORE_URL !== env.REDIS_URL && { store: openStore({ path: env.STORE_URL }) }),
  prepare: () => ({ pipeline, deps: { model, tools } }),
  log: (line) => process.stderr.write(`${line}\n`),
});
process.on('SIGTERM', () => void worker.close().then(() => process.exit(0)));
process.stdout.write(`worker ready ${process.pid}\n`);
