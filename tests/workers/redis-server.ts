// A real redis-server of the test's own on a free loopback port (config file: port, bind, no saving, noeviction),
// stopped by its pid. Tests skip with a message only when redis-server is missing outside CI.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export const redisInstalled = spawnSync('redis-server', ['--version']).status === 0;
if (!redisInstalled && process.env.CI === undefined) {
  console.warn(
    'SKIPPING the Redis tests: redis-server is not installed (apt-get install -y redis-server); in CI they run',
  );
}
/** In CI a missing redis-server fails the tests instead of skipping them. */
export const runRedisTests = redisInstalled || process.env.CI !== undefined;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export interface RedisInstance {
  url: string;
  port: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Resolves once our own server answers on `url`: the PING's server must report our child's pid, since on a busy
 * machine another process may bind the free port first (then our child exits and a foreign server answers).
 */
async function waitForOwnServer(
  url: string,
  child: ChildProcess,
  exited: Promise<void>,
  deadline: number,
): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`redis-server exited before answering on ${url} (its port was taken?)`);
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const info = await client.info('server');
      if (Number(/process_id:(\d+)/.exec(info)?.[1]) === child.pid) return;
      throw new Error(`another redis-server answers on ${url}`);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      client.disconnect();
    }
  }
}

/** Starts redis-server on `port`, or on a free one (another one if that is taken meanwhile); resolves once it answers. */
export async function startRedis(port?: number): Promise<RedisInstance> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisOn(port ?? (await freePort()));
    } catch (error) {
      if (port !== undefined || attempt >= 4) throw error;
    }
  }
}

async function startRedisOn(chosen: number): Promise<RedisInstance> {
  const directory = mkdtempSync(join(tmpdir(), 'stageloop-redis-'));
  const config = join(directory, 'redis.conf');
  writeFileSync(
    config,
    [
      `port ${chosen}`,
      'bind 127.0.0.1',
      'save ""',
      'appendonly no',
      'maxmemory-policy noeviction',
      `dir ${directory}`,
      'loglevel warning',
    ].join('\n'),
  );
  const child = spawn('redis-server', [config], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${chosen}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await waitForOwnServer(url, child, exited, Date.now() + 20_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port: chosen, process: child, stop };
}
