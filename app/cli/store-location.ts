// Where the CLI records runs: --store PATH or URL, else $STAGELOOP_STORE, else $STAGELOOP_HOME/stageloop.db, else
// ./.stageloop/stageloop.db.
import type { Environment } from '../../src/model/config.js';
import type { RunStore } from '../../src/store/types.js';
import { StageloopError } from '../../src/common/stageloop-error.js';

const needsValue = '--store needs a file or URL: --store ./runs.db, --store postgres://USER@HOST/DATABASE';

/** Takes `--store PATH` / `--store=PATH` out of a command's arguments, so each command parses only its own flags. */
export function takeStoreFlag(argv: readonly string[]): { store?: string; rest: string[] } {
  const rest: string[] = [];
  let store: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--store') {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('-')) throw new StageloopError('usage', needsValue);
      store = value;
      index++;
    } else if (argument.startsWith('--store=')) {
      store = argument.slice('--store='.length);
      if (store === '') throw new StageloopError('usage', needsValue);
    } else {
      rest.push(argument);
    }
  }
  return store === undefined ? { rest } : { store, rest };
}

export interface OpenedStore {
  store: RunStore;
  /** How the store is shown: the file, or the URL without its password. */
  file: string;
  /** Where it is, for opening its sessions too: the file, or the whole URL (never printed). */
  location: string;
}

/**
 * Opens the store the CLI uses; the store modules load only here, when a command records or reads runs. `file` names
 * it in output: the SQLite file, or the URL without its password.
 */
export async function openCliStore(path: string | undefined, env: Environment, options: { optional?: boolean } = {}): Promise<OpenedStore> {
  if (path === '') throw new StageloopError('usage', needsValue);
  const location = { env, ...(path !== undefined ? { path } : {}) };
  const [{ openStore, storeDisplayName, storePath }, { MissingPackageError }] = await Promise.all([import('../../src/store/location.js'), import('../../src/common/optional-package.js')]);
  const file = storeDisplayName(location);
  try {
    return { store: openStore(location), file, location: storePath(location) };
  } catch (error) {
    // A light install has no SQLite binding: a command that can run without recording says so.
    if (options.optional && error instanceof MissingPackageError) throw new MissingPackageError(error.feature, error.missing, { cause: error, also: ', or pass --no-store' });
    throw error;
  }
}
