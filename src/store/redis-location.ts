// A store location that may be a Redis URL: `--store redis://HOST:PORT` opens the store the workers share, anything
// else the SQLite file as before.
import { openStore, type StoreLocation } from './location.js';
import { isRedisUrl } from './redis-connection.js';
import { redisStore } from './redis-store.js';
import type { RunStore } from './types.js';

export function openStoreAt(location: StoreLocation = {}): RunStore {
  if (location.path !== undefined && isRedisUrl(location.path)) return redisStore(location.path);
  return openStore(location);
}
