// The Redis store's writes as Lua scripts: each runs atomically on the run's own slot, so the epoch and head checks
// and the writes they guard can never be split by another client (the compare-and-set that fences a stale owner).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { StageloopError } from '../common/stageloop-error.js';
import {
  RunBusyError,
  RunFinishedError,
  runNotFound,
  sequenceMismatch,
  staleClaim,
  type StoredRunStatus,
} from './types.js';

export interface RedisScript {
  readonly lua: string;
  readonly sha: string;
}

function script(lua: string): RedisScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/** Shared by the fenced scripts: replies {'missing'} or {'stale', epoch, released} unless ARGV[1], ARGV[2] hold it. */
const fence = `
local fenced = redis.call('HMGET', KEYS[1], 'epoch', 'ownerId', 'head', 'checkpointSeq')
if not fenced[1] then return {'missing'} end
if fenced[1] ~= ARGV[1] then return {'stale', fenced[1], '0'} end
if fenced[2] ~= ARGV[2] then return {'stale', fenced[1], '1'} end
`;

/** KEYS: run. ARGV: field, value pairs of the new run. */
export const createScript = script(`
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists'} end
redis.call('HSET', KEYS[1], unpack(ARGV))
return {'ok'}
`);

/** KEYS: run. ARGV: ownerId, pid, host, now, leaseUntil, force ('1'), the id of a holder known dead ('' if none). */
export const claimScript = script(`
local row = redis.call('HMGET', KEYS[1], 'status', 'ownerId', 'leaseUntil', 'ownerPid', 'ownerHost')
if not row[1] then return {'missing'} end
if row[1] == 'completed' or row[1] == 'stopped' then return {'finished', row[1]} end
local holder = row[2]
if holder and holder ~= ARGV[1] and ARGV[6] ~= '1' and holder ~= ARGV[7] and row[3] and tonumber(row[3]) > tonumber(ARGV[4]) then
  return {'busy', holder, row[4], row[5]}
end
local epoch = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HSET', KEYS[1], 'ownerId', ARGV[1], 'ownerPid', ARGV[2], 'ownerHost', ARGV[3], 'leaseUntil', ARGV[5], 'status', 'running', 'updatedAt', ARGV[4])
return {'ok', tostring(epoch)}
`);

/**
 * KEYS: run, journal, checkpoints. ARGV: epoch, ownerId, now, leaseUntil|'', iterations|'', tokens|'',
 * checkpointSeq|'', checkpoint text|'', dropEarlier ('1'), entry count, then seq, text per entry.
 */
export const appendScript = script(`${fence}
local head = tonumber(fenced[3])
local count = tonumber(ARGV[10])
for index = 0, count - 1 do
  local seq = tonumber(ARGV[11 + index * 2])
  if seq ~= head + 1 + index then return {'seq', tostring(head + 1 + index), tostring(seq)} end
end
local newHead = head + count
-- A checkpoint follows an entry of this write (a writer may hold one until its next write), or the head when it writes none.
if ARGV[7] ~= '' then
  local at = tonumber(ARGV[7])
  if at > newHead or at < math.min(head + 1, newHead) then return {'seq', tostring(newHead), ARGV[7]} end
end
-- One RPUSH and one HSET for the whole write, however many entries it carries.
if count > 0 then
  local texts = {}
  for index = 0, count - 1 do texts[index + 1] = ARGV[12 + index * 2] end
  redis.call('RPUSH', KEYS[2], unpack(texts))
end
if ARGV[7] ~= '' then
  if ARGV[9] == '1' then redis.call('DEL', KEYS[3]) end
  if ARGV[9] ~= '1' and fenced[4] == ARGV[7] and redis.call('LLEN', KEYS[3]) > 0 then
    redis.call('LSET', KEYS[3], -1, ARGV[8])
  else
    redis.call('RPUSH', KEYS[3], ARGV[8])
  end
end
local fields = {'head', tostring(newHead), 'updatedAt', ARGV[3]}
if ARGV[7] ~= '' then table.insert(fields, 'checkpointSeq'); table.insert(fields, ARGV[7]) end
if ARGV[4] ~= '' then table.insert(fields, 'leaseUntil'); table.insert(fields, ARGV[4]) end
if ARGV[5] ~= '' then table.insert(fields, 'iterations'); table.insert(fields, ARGV[5]) end
if ARGV[6] ~= '' then table.insert(fields, 'tokens'); table.insert(fields, ARGV[6]) end
redis.call('HSET', KEYS[1], unpack(fields))
return {'ok'}
`);

/** KEYS: run. ARGV: epoch, ownerId, the number of field, value pairs to set, the pairs, then fields to delete. */
export const fencedSetScript = script(`${fence}
local setCount = tonumber(ARGV[3])
if setCount > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 4, 3 + setCount * 2)) end
if #ARGV > 3 + setCount * 2 then redis.call('HDEL', KEYS[1], unpack(ARGV, 4 + setCount * 2)) end
return {'ok'}
`);

/** Runs a script by its sha, loading it once when this server has not seen it (NOSCRIPT). */
export async function runScript(
  redis: Redis,
  which: RedisScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<string[]> {
  try {
    return (await redis.evalsha(which.sha, keys.length, ...keys, ...args)) as string[];
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return (await redis.eval(which.lua, keys.length, ...keys, ...args)) as string[];
  }
}

/** Turns a script's refusal into the port's error; `store` names the store in an unknown reply. */
export function scriptRefusal(store: string, runId: string, epoch: number, reply: string[]): void {
  const [status, first, second, third] = reply;
  if (status === 'ok') return;
  if (status === 'missing') throw runNotFound(runId);
  if (status === 'stale') throw staleClaim(runId, epoch, Number(first), second === '1');
  if (status === 'seq') throw sequenceMismatch(runId, Number(first), Number(second));
  if (status === 'finished') throw new RunFinishedError(runId, first as StoredRunStatus);
  if (status === 'busy') throw new RunBusyError(runId, { id: first!, pid: Number(second), host: third ?? '' });
  throw new StageloopError('store', `${store} answered an unknown reply "${String(status)}" for run ${runId}`);
}
