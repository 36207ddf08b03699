// redisStore(url): the RunStore on Redis, reachable from every worker. Per run a hash (header, epoch, head, owner),
// a list for the journal and one for checkpoints, all under the `{runId}` hash tag so a cluster keeps a run on one
// slot; every write is one Lua script that checks the epoch (and head) and writes in the same step.
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { jsonText } from './rows.js';
import { appendScript, claimScript, createScript, fencedSetScript, runScript, scriptRefusal } from './redis-scripts.js';
import { checkRedisUrl, connectRedis, type RedisConnectOptions } from './redis-connection.js';
import { checkpointText, entryTexts, newRunFields, ownerFields, summaryOf } from './redis-records.js';
import { pidAlive, type StoreClock } from './run-store.js';
import {
  RunExistsError,
  runNotFound,
  type Checkpoint,
  type Claim,
  type StoredEntry,
  type RunStore,
  type RunSummary,
} from './types.js';
import { StageloopError } from '../common/stageloop-error.js';

export interface RedisStoreOptions extends RedisConnectOptions {
  /** The clock leases are measured against (default: Date). */
  clock?: StoreClock;
  /** Prefix of every key (default "stageloop"), so several stores can share one Redis. */
  prefix?: string;
}

const thisHost = hostname();

function checkLease(what: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0))
    throw new StageloopError('store', `${what} must be a number of ms >= 0, got ${String(value)}`);
}

/** Opens the Redis store at `connection` (a redis:// URL, or a client the caller owns and closes). */
export function redisStore(connection: string | Redis, options: RedisStoreOptions = {}): RunStore {
  const clock = options.clock ?? Date;
  const prefix = options.prefix ?? 'stageloop';
  const owned = typeof connection === 'string';
  const name = `the Redis store at ${owned ? checkRedisUrl(connection) : 'the given connection'}`;
  // The store sends no blocking command: the writes of a worker's concurrent runs may share a socket write.
  const client = owned ? connectRedis(connection, { autoPipelining: true, ...options }) : Promise.resolve(connection);
  client.catch(() => undefined);
  let loaded: Redis | undefined;
  /** The client, once ioredis has loaded (ready() first, so a closed store never reconnects). */
  const connected = async (): Promise<Redis> => {
    ready();
    return (loaded ??= await client);
  };
  const runKey = (runId: string) => `${prefix}:{${runId}}:run`;
  const journalKey = (runId: string) => `${prefix}:{${runId}}:journal`;
  const checkpointsKey = (runId: string) => `${prefix}:{${runId}}:checkpoints`;
  const indexKey = `${prefix}:runs`;
  let closed = false;
  const ready = (): void => {
    if (closed) throw new StageloopError('store', `${name} is closed: open the store again`);
  };

  const refusal = (runId: string, epoch: number, reply: string[]) => scriptRefusal(name, runId, epoch, reply);
  /** A fenced change of run fields (heartbeat, finish, release); undefined values are deleted. */
  const fencedSet = async (
    claim: Claim,
    values: Record<string, string | number | null>,
    remove: string[] = [],
  ): Promise<void> => {
    const redis = await connected();
    const set = Object.entries({ ...values, updatedAt: clock.now() }).filter(([, value]) => value !== null);
    const unset = [
      ...remove,
      ...Object.entries(values)
        .filter(([, value]) => value === null)
        .map(([field]) => field),
    ];
    const args = [String(claim.epoch), claim.owner.id, String(set.length), ...set.flat().map(String), ...unset];
    refusal(claim.runId, claim.epoch, await runScript(redis, fencedSetScript, [runKey(claim.runId)], args));
  };
  /** The run's journal or checkpoints list from index `from` on, parsed; no such run is an error. */
  const readList = async <Item>(runId: string, listKey: string, from: number): Promise<Item[]> => {
    const redis = await connected();
    const [[, exists], [, texts]] = (await redis.multi().exists(runKey(runId)).lrange(listKey, from, -1).exec()) as [
      [null, number],
      [null, string[]],
    ];
    if (exists === 0) throw runNotFound(runId);
    return texts.map((text) => JSON.parse(text) as Item);
  };
  const readCheckpoints = (runId: string, from: number) => readList<Checkpoint>(runId, checkpointsKey(runId), from);

  return {
    async create(header, owner, leaseMs) {
      const redis = await connected();
      checkLease('leaseMs', leaseMs);
      const input = jsonText(`the input of run ${header.runId}`, header.input);
      const runOptions = jsonText(`the options of run ${header.runId}`, header.options);
      const id = await redis.incr(`${indexKey}:next`);
      const fields = newRunFields(id, header, { input, options: runOptions }, owner, clock.now(), leaseMs);
      const member = `${String(id).padStart(15, '0')}:${header.runId}`;
      // Sent together (one round trip): the index entry goes with the script. The index is apart from the run's slot
      // (one cluster slot per run), so it cannot join the script; a failed script takes its index entry back out.
      const scripted = runScript(redis, createScript, [runKey(header.runId)], fields);
      const listing = redis.zadd(indexKey, header.createdAt, member);
      let status: string | undefined;
      try {
        [status] = await scripted;
      } catch (error) {
        await listing.then((added) => (added > 0 ? redis.zrem(indexKey, member) : 0)).catch(() => undefined);
        throw error;
      }
      const listed = await listing;
      if (status === 'exists') {
        if (listed > 0) await redis.zrem(indexKey, member);
        throw new RunExistsError(header.runId);
      }
      return { runId: header.runId, epoch: 1, owner: { ...owner } };
    },

    async claim(runId, owner, claimOptions = {}) {
      const redis = await connected();
      checkLease('leaseMs', claimOptions.leaseMs);
      const [holderId, holderPid, holderHost] = await redis.hmget(runKey(runId), 'ownerId', 'ownerPid', 'ownerHost');
      // A dead pid on this host frees the run at once; Lua cannot ask the kernel, so the dead holder is named to it.
      const deadHolder = holderId != null && holderHost === thisHost && !pidAlive(Number(holderPid)) ? holderId : '';
      const now = clock.now();
      const args = [
        owner.id,
        owner.pid,
        owner.host,
        now,
        now + (claimOptions.leaseMs ?? 30_000),
        claimOptions.force ? '1' : '0',
        deadHolder,
      ];
      const reply = await runScript(redis, claimScript, [runKey(runId)], args);
      refusal(runId, 0, reply);
      const run = await this.get(runId);
      if (run === undefined) throw runNotFound(runId);
      return {
        claim: { runId, epoch: Number(reply[1]), owner: { ...owner } },
        run: { ...run, epoch: Number(reply[1]) },
      };
    },

    async append(claim, entries, appendOptions = {}) {
      const redis = await connected();
      const texts = entryTexts(claim.runId, entries);
      const checkpoint = appendOptions.checkpoint;
      const checkpointed = checkpoint === undefined ? '' : checkpointText(claim.runId, checkpoint);
      const progress = appendOptions.progress;
      const iterations = progress?.iterations ?? checkpoint?.position.iteration;
      const now = clock.now();
      const args = [
        String(claim.epoch),
        claim.owner.id,
        String(now),
        appendOptions.leaseMs === undefined ? '' : String(now + appendOptions.leaseMs),
        iterations === undefined ? '' : String(iterations),
        progress === undefined ? '' : String(progress.tokens),
        checkpoint === undefined ? '' : String(checkpoint.seq),
        checkpointed,
        appendOptions.dropEarlierCheckpoints ? '1' : '0',
        String(entries.length),
        ...texts,
      ];
      refusal(
        claim.runId,
        claim.epoch,
        await runScript(
          redis,
          appendScript,
          [runKey(claim.runId), journalKey(claim.runId), checkpointsKey(claim.runId)],
          args,
        ),
      );
    },

    async heartbeat(claim, leaseMs) {
      checkLease('leaseMs', leaseMs);
      await fencedSet(claim, { leaseUntil: clock.now() + leaseMs });
    },

    async finish(claim, outcome) {
      const outcomeText = jsonText(`the outcome of run ${claim.runId}`, outcome);
      await fencedSet(
        claim,
        {
          status: outcome.status,
          answer: outcome.answer,
          iterations: outcome.iterations,
          tokens: outcome.tokens,
          outcome: outcomeText,
        },
        ownerFields,
      );
    },

    async release(claim, status) {
      await fencedSet(claim, { status }, ownerFields);
    },

    async get(runId) {
      const redis = await connected();
      const fields = await redis.hgetall(runKey(runId));
      return fields.runId === undefined ? undefined : summaryOf(fields);
    },

    async list(filter = {}) {
      const redis = await connected();
      const limit = filter.limit ?? -1;
      if (!Number.isInteger(limit) || limit < -1)
        throw new StageloopError('store', `list limit must be a whole number >= 0, got ${String(filter.limit)}`);
      if (limit === 0) return [];
      const runs: RunSummary[] = [];
      // Newest first in pages; a status filter reads on until the limit is met.
      const page = filter.status === undefined && limit > 0 ? limit : 200;
      let first = 0;
      if (filter.before !== undefined) {
        // The index member is "id:runId" (the id breaks createdAt ties): the page starts just after the cursor's rank.
        const id = await redis.hget(runKey(filter.before), 'id');
        const rank = id === null ? null : await redis.zrevrank(indexKey, `${id.padStart(15, '0')}:${filter.before}`);
        if (rank === null) throw runNotFound(filter.before);
        first = rank + 1;
      }
      for (let start = first; limit === -1 || runs.length < limit; start += page) {
        const members = await redis.zrevrange(indexKey, start, start + page - 1);
        if (members.length === 0) break;
        const pipeline = redis.pipeline();
        for (const member of members) pipeline.hgetall(runKey(member.slice(member.indexOf(':') + 1)));
        for (const [, fields] of (await pipeline.exec()) ?? []) {
          const summary =
            (fields as Record<string, string>).runId === undefined
              ? undefined
              : summaryOf(fields as Record<string, string>);
          if (summary !== undefined && (filter.status === undefined || summary.status === filter.status))
            runs.push(summary);
        }
      }
      return limit === -1 ? runs : runs.slice(0, limit);
    },

    async journal(runId, afterSeq = 0) {
      // seq n sits at index n - 1: contiguity is enforced on every append.
      return readList<StoredEntry>(runId, journalKey(runId), Math.max(0, afterSeq));
    },

    async latestCheckpoint(runId) {
      ready();
      return (await readCheckpoints(runId, -1))[0];
    },

    async checkpoints(runId) {
      ready();
      return readCheckpoints(runId, 0);
    },

    async close() {
      if (closed) return;
      closed = true;
      if (!owned) return;
      const redis = await client.catch(() => undefined);
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}
