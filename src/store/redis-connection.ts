// Connections to Redis: a checked redis:// URL, a client that either waits out an outage (workers) or fails soon
// (one-shot commands), and a reachability probe that turns "nothing listens there" into one line. ioredis loads on
// first use: `import 'stageloop'` does not pay for it.
import type { Redis, RedisOptions } from 'ioredis';
import { messageOf } from '../common/error-message.js';
import { loadOptional, optionalParts } from '../common/optional-package.js';
import { StageloopError } from '../common/stageloop-error.js';

export interface RedisConnectOptions {
  /** Commands wait while Redis is away and run once it is back (a worker); otherwise they fail after a few tries. */
  patient?: boolean;
  /** Told about connection errors (each is retried); without it they are ignored, never an unhandled 'error'. */
  onConnectionError?: (error: Error) => void;
  /** Commands issued in the same tick go out as one write (the store's many concurrent runs); never for blocking commands. */
  autoPipelining?: boolean;
}

/** Whether a store location names Redis rather than a SQLite file. */
export function isRedisUrl(location: string): boolean {
  return /^rediss?:\/\//i.test(location);
}

export function checkRedisUrl(url: string): string {
  if (!isRedisUrl(url) || !URL.canParse(url))
    throw new StageloopError(
      'store',
      `"${url}" is not a Redis URL: write it as redis://HOST:PORT (or rediss:// for TLS), e.g. redis://127.0.0.1:6379`,
    );
  return url;
}

const loadIoredis = () => loadOptional('a Redis store', optionalParts.redis, () => import('ioredis'));

/** The client options for this use: BullMQ's workers need maxRetriesPerRequest null, so do patient store writes. */
export function redisOptions(options: RedisConnectOptions = {}): RedisOptions {
  return {
    maxRetriesPerRequest: options.patient ? null : 2,
    // Reconnects back off up to 1 s: an outage ends within a second of Redis coming back.
    retryStrategy: (times) => Math.min(50 * times, 1_000),
    enableReadyCheck: true,
    ...(options.autoPipelining === true && { enableAutoPipelining: true }),
  };
}

export async function connectRedis(url: string, options: RedisConnectOptions = {}): Promise<Redis> {
  const { Redis } = await loadIoredis();
  const redis = new Redis(checkRedisUrl(url), redisOptions(options));
  redis.on('error', (error: Error) => options.onConnectionError?.(error));
  return redis;
}

/** Resolves once Redis at `url` answers PING; else rejects with one line naming the address and the fix. */
export async function checkRedisReachable(url: string, timeoutMs = 2_000): Promise<void> {
  const { Redis } = await loadIoredis();
  const probe = new Redis(checkRedisUrl(url), {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // connect() rejects with "Connection is closed"; the socket's own error (ECONNREFUSED) says why.
  let socketError: NodeJS.ErrnoException | undefined;
  probe.on('error', (error: NodeJS.ErrnoException) => (socketError ??= error));
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    const reason = socketError?.code ?? (error as NodeJS.ErrnoException).code ?? messageOf(socketError ?? error);
    throw new StageloopError(
      'store',
      `cannot reach Redis at ${url} (${reason}): start redis-server there, or pass the right --redis URL`,
    );
  } finally {
    probe.disconnect();
  }
}
