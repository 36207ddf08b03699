// Where the CLI records runs: --store PATH, else $STAGELOOP_HOME/stageloop.db, else ./.stageloop/stageloop.db.
import type { Environment } from '../../src/model/config.js';
import type { RunStore } from '../../src/store/types.js';
import { UsageError } from './args.js';

/** Takes `--store PATH` / `--store=PATH` out of a command's arguments, so each command parses only its own flags. */
export function takeStoreFlag(argv: readonly string[]): { store?: string; rest: string[] } {
  const rest: string[] = [];
  let store: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--store') {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('-')) throw new UsageError('--store needs a file: --store ./runs.db');
      store = value;
      index++;
    } else if (argument.startsWith('--store=')) {
      store = argument.slice('--store='.length);
      if (store === '') throw new UsageError('--store needs a file: --store ./runs.db');
    } else {
      rest.push(argument);
    }
  }
  return store === undefined ? { rest } : { store, rest };
}

/** Opens the store the CLI uses (SQLite loads only here, when a command records or reads runs). */
export async function openCliStore(path: string | undefined, env: Environment): Promise<{ store: RunStore; file: string }> {
  const location = { env, ...(path !== undefined ? { path } : {}) };
  // --store redis://HOST:PORT opens the Redis store the workers share; anything else is a SQLite file.
  if (path !== undefined && /^rediss?:\/\//.test(path)) {
    const { openStoreAt } = await import('../../src/store/redis-location.js');
    return { store: openStoreAt(location), file: path.replace(/\/\/[^@/]*@/, '//') };
  }
  const { openStore, storePath } = await import('../../src/store/location.js');
  return { store: openStore(location), file: storePath(location) };
}
