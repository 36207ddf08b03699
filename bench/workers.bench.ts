// Workers on BullMQ: runs per second with 2 worker processes x concurrency 8 against a loopback model answering in
// 50 ms (each run: 3 tool calls then an answer, so 4 model calls), and the failover time after a SIGKILL (kill to the
// run's next claim by another worker), min/median/max over 10 kills, at the default lock 5 s and stall check 1 s.
// WORKERS_BENCH_RUNS sets the throughput's run count (200) after WORKERS_BENCH_WARMUP runs (32) that are not counted,
// WORKERS_BENCH_FAILOVER=0 skips the kills, and
// WORKERS_BENCH_PROFILE=DIR writes each worker's CPU profile there (node --cpu-prof; the workers then stop with SIGTERM).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { redisStore } from '../src/store/redis-store.js';
import { enqueueRun } from '../src/workers/run-job.js';
import { startChatServer } from '../tests/support/chat-server.js';
import { serveAgentModel, startWorkerProcess, type WorkerProcess } from '../tests/workers/fleet.js';
import { startRedis } from '../tests/workers/redis-server.js';
import { median } from './measure.js';

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux): a figure the machine's load moves less. */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
const workersCpuMs = (workers: readonly WorkerProcess[]) =>
  workers.reduce((sum, worker) => sum + cpuMsOf(worker.child.pid!), 0);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function run(): Promise<void> {
  const [redis, server] = await Promise.all([startRedis(), startChatServer()]);
  serveAgentModel(server, 50);
  const directory = mkdtempSync(join(tmpdir(), 'stageloop-bench-workers-'));
  const logFile = join(directory, 'effects.log');
  writeFileSync(logFile, '');
  const store = redisStore(redis.url);
  const queueConnection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue('stageloop-runs', { connection: queueConnection });
  const live: WorkerProcess[] = [];
  const profileDirectory = process.env.WORKERS_BENCH_PROFILE;
  const profiling = profileDirectory === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDirectory}`];
  const spawnWorker = async (extra: Record<string, string> = {}) => {
    const worker = await startWorkerProcess(
      {
        REDIS_URL: redis.url,
        MODEL_URL: server.url,
        SIDE_EFFECT_LOG: logFile,
        CONCURRENCY: '8',
        LOCK_MS: '5000',
        STALL_MS: '1000',
        ...extra,
      },
      profiling,
    );
    live.push(worker);
    return worker;
  };
  const kill = async (worker: WorkerProcess, signal: NodeJS.Signals = 'SIGKILL') => {
    worker.child.kill(signal);
    await worker.exited;
    live.splice(live.indexOf(worker), 1);
  };
  try {
    await Promise.all([spawnWorker(), spawnWorker()]);
    const total = Number(process.env.WORKERS_BENCH_RUNS ?? 200);
    // Warm-up runs first: a worker loads the model SDK and compiles its modules on its first jobs (under tsx here),
    // a one-off cost that would otherwise be counted as CPU per run and slow the first seconds.
    const warmUp = Number(process.env.WORKERS_BENCH_WARMUP ?? 32);
    for (let index = 0; index < warmUp; index += 1)
      await enqueueRun(queue, { task: `warm-up ${index}`, runId: `warm-up-${index}` });
    while ((await queue.getCompletedCount()) < warmUp) await sleep(20);
    // Redis commands per run: a figure that the machine's load does not move (the time figures it does, by 2x).
    const counter = new Redis(redis.url);
    const commandsSoFar = async () => Number(/total_commands_processed:(\d+)/.exec(await counter.info('stats'))![1]);
    const bytesInSoFar = async () => Number(/total_net_input_bytes:(\d+)/.exec(await counter.info('stats'))![1]);
    const commandsBefore = await commandsSoFar();
    const bytesBefore = await bytesInSoFar();
    const cpuBefore = workersCpuMs(live);
    const started = performance.now();
    for (let index = 0; index < total; index += 1)
      await enqueueRun(queue, { task: `throughput ${index}`, runId: `throughput-${index}` });
    // BullMQ's own count: reading every run's record each time put more load on Redis than the workers did.
    while ((await queue.getCompletedCount()) < warmUp + total) await sleep(20);
    const seconds = (performance.now() - started) / 1000;
    const cpuPerRun = (workersCpuMs(live) - cpuBefore) / total;
    const commandsPerRun = ((await commandsSoFar()) - commandsBefore) / total;
    const kibPerRun = ((await bytesInSoFar()) - bytesBefore) / total / 1024;
    const byCommand = [...(await counter.info('commandstats')).matchAll(/cmdstat_(\w+):calls=(\d+)/g)]
      .map(([, name, calls]) => [name!, Number(calls) / total] as const)
      .sort((a, b) => b[1] - a[1]);
    counter.disconnect();
    console.log(
      `Redis commands per run (workers, bench polling and enqueueing included): ${commandsPerRun.toFixed(0)}; by command (whole bench so far, per run): ${byCommand
        .slice(0, 10)
        .map(([name, calls]) => `${name} ${calls.toFixed(1)}`)
        .join(', ')}`,
    );
    console.log(`bytes sent to Redis per run: ${kibPerRun.toFixed(1)} KiB`);
    console.log(`worker CPU per run (user + system, both workers): ${cpuPerRun.toFixed(1)} ms`);
    console.log(
      `throughput: ${total} runs (4 model calls of 50 ms + 3 tool calls each) over 2 workers x concurrency 8: ${(total / seconds).toFixed(1)} runs/s (${seconds.toFixed(2)} s; ideal with 16 slots and 200 ms of model time per run: ${(16 / 0.2).toFixed(0)} runs/s)`,
    );

    const failovers: number[] = [];
    for (let round = 0; round < (process.env.WORKERS_BENCH_FAILOVER === '0' ? 0 : 10); round += 1) {
      const runId = `failover-${round}`;
      await enqueueRun(queue, { task: `failover ${round}`, runId });
      let holder: WorkerProcess | undefined;
      while (holder === undefined) {
        const run = await store.get(runId);
        holder = live.find((worker) => worker.child.pid === run?.owner?.pid && (run?.head ?? 0) >= 2);
        await sleep(10);
      }
      const epoch = (await store.get(runId))!.epoch;
      await kill(holder);
      const killedAt = performance.now();
      while (((await store.get(runId))?.epoch ?? 0) <= epoch) await sleep(10);
      failovers.push(performance.now() - killedAt);
      while ((await store.get(runId))?.status !== 'completed') await sleep(20);
      await spawnWorker();
    }
    const sorted = [...failovers].sort((a, b) => a - b);
    if (sorted.length > 0)
      console.log(
        `failover after SIGKILL (lock 5000 ms, stall check 1000 ms), kill to the next claim, 10 kills: min ${sorted[0]!.toFixed(0)} ms, median ${median(sorted).toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`,
      );
  } finally {
    // A profiled worker writes its profile as it exits, which a SIGKILL never lets it do.
    for (const worker of [...live]) await kill(worker, profileDirectory === undefined ? 'SIGKILL' : 'SIGTERM');
    await queue.close();
    // BullMQ leaves a connection it was given open: left open, it kept the bench alive (reconnecting) after Redis stopped.
    queueConnection.disconnect();
    await store.close();
    await Promise.all([redis.stop(), server.close()]);
    rmSync(directory, { recursive: true, force: true });
  }
}
