// redisStore: the shared conformance suite against a real redis-server, then what only Redis has: the hash tag that
// keeps a run on one slot, an unreachable server, and fencing between two connections.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRedisReachable, checkRedisUrl } from '../../src/store/redis-connection.js';
import { redisStore } from '../../src/store/redis-store.js';
import { freePort, runRedisTests, startRedis, type RedisInstance } from '../workers/redis-server.js';
import {
  checkpoint,
  deadPid,
  entry,
  header,
  liveOwner,
  sharedStoreFencing,
  storeConformance,
  type StoreFactory,
} from './conformance.js';
import { storeLeaseConformance } from './conformance-leases.js';

let server: RedisInstance | undefined;
let count = 0;

describe.runIf(runRedisTests)('redisStore', () => {
  beforeAll(async () => {
    server = await startRedis();
  }, 20_000);
  afterAll(async () => server?.stop());

  // Each store gets its own prefix: a fresh, empty store on the same server.
  const factory: StoreFactory = (clock) => redisStore(server!.url, { clock, prefix: `conformance-${++count}` });
  storeConformance('redisStore', factory);
  storeLeaseConformance('redisStore', factory);

  it('keeps every key of a run under its {runId} hash tag, so a cluster keeps the run on one slot', async () => {
    const store = redisStore(server!.url, { prefix: 'tags' });
    const claim = await store.create(header('r-tag'), liveOwner('alice'), 5_000);
    await store.append(claim, [entry(1)], { checkpoint: checkpoint(1) });
    const client = new Redis(server!.url);
    const keys = (await client.keys('tags:*')).sort();
    expect(keys).toEqual([
      'tags:runs',
      'tags:runs:next',
      'tags:{r-tag}:checkpoints',
      'tags:{r-tag}:journal',
      'tags:{r-tag}:run',
    ]);
    const slots = await Promise.all(
      keys.filter((key) => key.includes('{')).map((key) => client.call('CLUSTER', 'KEYSLOT', key).catch(() => null)),
    );
    // Without cluster mode CLUSTER KEYSLOT may be refused; when it answers, the slots agree.
    if (slots.every((slot) => slot !== null)) expect(new Set(slots).size).toBe(1);
    client.disconnect();
    await store.close();
  });

  sharedStoreFencing('Redis', () => redisStore(server!.url, { prefix: 'two' }));

  it('a create whose script fails leaves no index entry behind', async () => {
    const client = new Redis(server!.url);
    // A user that may not HSET: the create script fails inside Redis (scripts' commands obey the caller's ACL).
    await client.call('ACL', 'SETUSER', 'nohset', 'on', '>secret', '~*', '&*', '+@all', '-hset');
    const store = redisStore(server!.url.replace('redis://', 'redis://nohset:secret@'), { prefix: 'failed-create' });
    await expect(store.create(header('r-bad'), liveOwner('alice'), 5_000)).rejects.toThrow(
      /user executing the script can/,
    );
    expect(await client.zrange('failed-create:runs', '0', '-1')).toEqual([]);
    client.disconnect();
    await store.close();
  });

  it('names an unreachable Redis and a malformed URL in one line each', async () => {
    const port = await freePort();
    await expect(checkRedisReachable(`redis://127.0.0.1:${port}`, 500)).rejects.toThrow(
      `cannot reach Redis at redis://127.0.0.1:${port} (ECONNREFUSED): start redis-server there, or pass the right --redis URL`,
    );
    expect(() => checkRedisUrl('localhost:6379')).toThrow(
      '"localhost:6379" is not a Redis URL: write it as redis://HOST:PORT',
    );
    await expect(checkRedisReachable(server!.url)).resolves.toBeUndefined();
  });
});
