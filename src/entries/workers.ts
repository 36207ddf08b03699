/** @module stageloop/workers */
// 'stageloop/workers': runs queued on BullMQ and recorded in Redis. bullmq and ioredis (optional packages) load when
// a worker starts or a Redis store connects.
export { redisStore, type RedisStoreOptions } from '../store/redis-store.js';
export { checkRedisReachable, isRedisUrl, type RedisConnectOptions } from '../store/redis-connection.js';
export { openStoreAt } from '../store/redis-location.js';
export { startWorker, type WorkerOptions, type RunWorker } from '../workers/worker.js';
export {
  enqueueRun,
  parseRunJob,
  defaultQueueName,
  RunJobError,
  type RunJobData,
  type EnqueueInput,
  type EnqueueOptions,
} from '../workers/run-job.js';
export {
  processRun,
  RunTakenOverError,
  type PreparedRun,
  type PrepareRun,
  type RunJobResult,
  type ProcessRunOptions,
} from '../workers/process-run.js';
