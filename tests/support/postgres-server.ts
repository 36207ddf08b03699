// A real PostgreSQL server of the test's own: initdb into a temporary folder, the postmaster on a free loopback port,
// stopped by its pid. PostgreSQL refuses to run as root, so as root (CI) every step runs as the `postgres` user,
// which Debian's package creates. Tests skip with a message only when PostgreSQL is missing outside CI.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../workers/redis-server.js';

/** The folder of initdb and pg_ctl: Debian keeps them per major version under /usr/lib/postgresql. */
function findBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const newest = readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a))[0];
    if (newest !== undefined && existsSync(join(root, newest, 'bin', 'initdb'))) return join(root, newest, 'bin');
  }
  const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const bindir = found.status === 0 ? found.stdout.trim() : '';
  return bindir !== '' && existsSync(join(bindir, 'initdb')) ? bindir : undefined;
}

const binaries = findBinaries();
export const postgresInstalled = binaries !== undefined;
if (!postgresInstalled && process.env.CI === undefined) {
  console.warn(
    'SKIPPING the PostgreSQL tests: PostgreSQL is not installed (apt-get install -y postgresql); in CI they run',
  );
}
/** In CI a missing PostgreSQL fails the tests instead of skipping them. */
export const runPostgresTests = postgresInstalled || process.env.CI !== undefined;

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program (as `postgres` when this process is root) and returns its output. */
function runAsServerUser(program: string, args: string[]): string {
  const command = join(binaries ?? '/nonexistent', program);
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
}

export interface PostgresInstance {
  /** postgres://postgres@127.0.0.1:PORT/postgres: the superuser, trusted on loopback. */
  url: string;
  port: number;
  /** The postmaster's pid (from postmaster.pid), for tests that kill it. */
  pid(): number;
  /** A URL for another database or user on this server. */
  urlFor(database: string, user?: string): string;
  /** Stops the server (fast shutdown) and starts it again on the same port and data. */
  restart(): Promise<void>;
  /** Kills the postmaster and its backends with SIGKILL (a crash), without starting it again. */
  crash(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Waits (bounded) until `pid` has exited, polling the kernel: the postmaster is not our child. */
async function waitGone(pid: number, boundMs = 60_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!processGone(pid)) {
    if (Date.now() > deadline) throw new Error(`postgres pid ${pid} did not exit within ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** initdb into a new temporary folder and starts the server on a free loopback port; resolves once it accepts. */
export async function startPostgres(): Promise<PostgresInstance> {
  if (binaries === undefined) throw new Error('PostgreSQL is not installed: apt-get install -y postgresql');
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-postgres-'));
  if (asRoot)
    chownSync(
      folder,
      Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
      Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
    );
  chmodSync(folder, 0o700);
  const data = join(folder, 'data');
  // --no-sync and fsync=off: a test server need not survive power loss, and the machine is shared.
  runAsServerUser('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  let port = 0;
  const start = async (): Promise<void> => {
    const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
    runAsServerUser('pg_ctl', [
      '-D',
      data,
      '-w',
      '-t',
      '120',
      '-l',
      join(folder, 'server.log'),
      '-o',
      options,
      'start',
    ]);
  };
  // A free port may be taken between asking and binding on a busy machine: try a few.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (error) {
      if (attempt >= 4) throw new Error(`PostgreSQL did not start: ${readLog(folder)}`, { cause: error });
    }
  }
  const pid = (): number => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const stop = async (): Promise<void> => {
    if (!existsSync(join(data, 'postmaster.pid'))) return;
    const running = pid();
    // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, the data stays consistent.
    if (!processGone(running)) process.kill(running, 'SIGINT');
    await waitGone(running);
  };
  const urlFor = (database: string, user = 'postgres') => `postgres://${user}@127.0.0.1:${port}/${database}`;
  return {
    url: urlFor('postgres'),
    port,
    pid,
    urlFor,
    start,
    async restart() {
      await stop();
      await start();
    },
    async crash() {
      const running = pid();
      // Killing the postmaster alone leaves backends; killing the whole process group (the postmaster leads it when
      // pg_ctl started it) takes them all, as a machine crash would.
      try {
        process.kill(-running, 'SIGKILL');
      } catch {
        process.kill(running, 'SIGKILL');
      }
      await waitGone(running);
    },
    async stop() {
      await stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function readLog(folder: string): string {
  try {
    return readFileSync(join(folder, 'server.log'), 'utf8').split('\n').slice(-5).join(' | ');
  } catch {
    return 'no server log';
  }
}
