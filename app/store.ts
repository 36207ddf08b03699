// Where stageloop records runs: --store PATH or URL, else $STAGELOOP_STORE, else $STAGELOOP_HOME/stageloop.db, else
// ./.stageloop/stageloop.db. The CLI's commands and the server (app/serve.ts) open their store here.
import { StageloopError } from '../src/common/stageloop-error.js';
import type { Environment } from '../src/model/config.js';
import type { RunStore } from '../src/store/types.js';

export const storeNeedsValue = '--store needs a file or URL: --store ./runs.db, --store postgres://USER@HOST/DATABASE';

export interface OpenedStore {
  store: RunStore;
  /** How the store is shown: the file, or the URL without its password. */
  file: string;
  /** Where it is, for opening its sessions too: the file, or the whole URL (never printed). */
  location: string;
}

export interface OpenOptions {
  /** A command that can run without recording: a missing SQLite binding says "or pass --no-store". */
  optional?: boolean;
}

/**
 * Opens the store a command or the server records in; the store modules load only here, when runs are recorded or
 * read. `file` names it in output: the SQLite file, or the URL without its password. With `unrecorded`, a run in the
 * default store on a Node with no SQLite driver (20 without better-sqlite3) runs unrecorded: undefined, after the line.
 */
export async function openRunStore(
  path: string | undefined,
  env: Environment,
  options?: OpenOptions,
): Promise<OpenedStore>;
export async function openRunStore(
  path: string | undefined,
  env: Environment,
  options: OpenOptions & { unrecorded: (line: string) => void },
): Promise<OpenedStore | undefined>;
export async function openRunStore(
  path: string | undefined,
  env: Environment,
  options: OpenOptions & { unrecorded?: (line: string) => void } = {},
): Promise<OpenedStore | undefined> {
  if (path === '') throw new StageloopError('usage', storeNeedsValue);
  const location = { env, ...(path !== undefined ? { path } : {}) };
  const [
    { openStore, storeDisplayName, storePath, storeGiven },
    { MissingPackageError },
    { sqliteDriverAvailable, unrecordedLine },
  ] = await Promise.all([
    import('../src/store/location.js'),
    import('../src/common/optional-package.js'),
    import('../src/store/sqlite-driver.js'),
  ]);
  // Only the default store falls back to an unrecorded run: a store the user named is one they want written.
  if (options.unrecorded !== undefined && storeGiven(location) === undefined && !sqliteDriverAvailable()) {
    options.unrecorded(unrecordedLine());
    return undefined;
  }
  const file = storeDisplayName(location);
  try {
    return { store: openStore(location), file, location: storePath(location) };
  } catch (error) {
    // A light install has no SQLite binding: a command that can run without recording says so.
    if (options.optional && error instanceof MissingPackageError)
      throw new MissingPackageError(error.feature, error.missing, { cause: error, also: ', or pass --no-store' });
    throw error;
  }
}
