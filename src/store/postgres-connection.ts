// Connections to PostgreSQL: a checked postgres:// URL shown without its password, the `pg` client loaded only when a
// PostgreSQL store is opened (an optional peer dependency), a pool, transactions, and one line per failure that
// names the problem and the fix.
import { createRequire } from 'node:module';
import { messageOf } from '../common/error-message.js';
import { requireOptional } from '../common/optional-package.js';
import { StageloopError } from '../common/stageloop-error.js';

/** What the stores need of a `pg` Pool (so the public types do not depend on @types/pg). */
export interface PostgresPool {
  connect(): Promise<PostgresClient>;
  query(query: PostgresQuery): Promise<PostgresResult>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  end(): Promise<void>;
}

export interface PostgresClient {
  query(query: PostgresQuery | string): Promise<PostgresResult>;
  release(destroy?: boolean | Error): void;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
}

export interface PostgresQuery {
  text: string;
  values?: unknown[];
  name?: string;
  types?: { getTypeParser: (oid: number, format?: string) => (value: string) => unknown };
}

export interface PostgresResult {
  rows: Array<Record<string, unknown>>;
  rowCount: number | null;
}

/** Whether a store location names PostgreSQL. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL as it may be printed or recorded: the password replaced by "***". */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}

/** Checks the URL names a host and a database; returns it unchanged. */
export function checkPostgresUrl(url: string): string {
  const valid = isPostgresUrl(url) && URL.canParse(url) && new URL(url).hostname !== '';
  if (!valid)
    throw new StageloopError(
      'config',
      `"${redactUrl(url)}" is not a PostgreSQL URL: write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE, e.g. postgres://stageloop@127.0.0.1:5432/stageloop`,
    );
  return url;
}

/** A URL's `?schema=NAME` (the store's own parameter, not libpq's), and the URL without it for the client. */
export function splitSchema(url: string): { url: string; schema?: string } {
  if (!URL.canParse(url)) return { url };
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  if (schema === null) return { url };
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), schema };
}

/** The database and user a URL names, for messages (libpq's defaults when left out). */
function partsOf(url: string): { database: string; user: string } {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const user = decodeURIComponent(parsed?.username ?? '') || 'postgres';
  const database = decodeURIComponent(parsed?.pathname.slice(1) ?? '') || user;
  return { database, user };
}

interface PgModule {
  types: TypeParsers;
  Pool: new (config: {
    connectionString: string;
    max?: number;
    connectionTimeoutMillis?: number;
    idleTimeoutMillis?: number;
    application_name?: string;
    lock_timeout?: number;
    idle_in_transaction_session_timeout?: number;
  }) => PostgresPool;
  Client: new (config: {
    connectionString: string;
    connectionTimeoutMillis?: number;
    application_name?: string;
  }) => PostgresClient & { connect(): Promise<void>; end(): Promise<void> };
}

const require = createRequire(import.meta.url);
let loaded: PgModule | undefined;

/** `pg`, loaded on the first PostgreSQL store: a one-line error naming the package when it is not installed. */
export function loadPg(): PgModule {
  if (loaded !== undefined) return loaded;
  loaded = requireOptional('a postgres:// store', 'pg', () => require('pg') as PgModule);
  return loaded;
}

export interface PostgresConnectOptions {
  /** Connections the pool keeps at most (default 10, as pg's own). */
  maxConnections?: number;
  /** How long opening a connection may take before the write fails, in ms (default 5000). */
  connectTimeoutMs?: number;
  /**
   * How long a transaction may sit open with its client silent before the server ends it, in ms (default 5000): a
   * stopped or hung owner must not keep its run's row locked against the process taking the run over.
   */
  idleTransactionTimeoutMs?: number;
}

export function createPool(
  url: string,
  options: PostgresConnectOptions,
  onError: (error: Error) => void,
): PostgresPool {
  const { Pool } = loadPg();
  const idleTransaction = options.idleTransactionTimeoutMs ?? 5_000;
  const pool = new Pool({
    connectionString: checkPostgresUrl(url),
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 10_000,
    application_name: 'stageloop',
    idle_in_transaction_session_timeout: idleTransaction,
    // A row lock waits at most a little longer than a silent holder can keep it.
    lock_timeout: idleTransaction * 2,
  });
  // An idle connection the server closed emits 'error' on the pool: without a listener it would end the process.
  pool.on('error', onError);
  return pool;
}

type TypeParsers = NonNullable<PostgresQuery['types']>;
let numeric: TypeParsers | undefined;

/** bigint columns (ms timestamps, ids) as numbers, per query, so a caller's own pool keeps its own parsers. */
export function numericTypes(): TypeParsers {
  if (numeric !== undefined) return numeric;
  const defaults = loadPg().types;
  numeric = { getTypeParser: (oid, format) => (oid === 20 ? Number : defaults.getTypeParser(oid, format)) };
  return numeric;
}

const lostConnection = new Set([
  '25P03',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
]);

/** Whether an error means the connection is gone (so the client must not go back to the pool). */
export function isConnectionError(error: unknown): boolean {
  const code = String((error as { code?: unknown })?.code ?? '');
  return (
    lostConnection.has(code) ||
    code === 'ECONNREFUSED' ||
    /Connection terminated|connection is closed|Client has encountered a connection error/i.test(messageOf(error))
  );
}

/** What went wrong, as one store error line naming the server (never its password), the reason and the fix. */
export function postgresFailure(url: string, error: unknown): StageloopError {
  if (error instanceof StageloopError) return error;
  const where = `PostgreSQL at ${redactUrl(url)}`;
  const code = String((error as { code?: unknown })?.code ?? '');
  const message = messageOf(error).split('\n')[0]!;
  const { database, user } = partsOf(url);
  let text: string;
  if (
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'EHOSTUNREACH' ||
    /timeout expired|timeout exceeded when trying to connect/i.test(message)
  ) {
    text = `cannot reach ${where} (${code || message}): start the server there, or pass the right --store URL`;
  } else if (code === '3D000') {
    text = `${where} has no database "${database}": create it (createdb ${database}), or name another in the --store URL`;
  } else if (code === '28P01' || code === '28000') {
    text = `${where} refused user "${user}" (${message}): check the user and password in the --store URL`;
  } else if (code === '42501') {
    text = `user "${user}" lacks the rights the store needs on ${where} (${message}): grant them (e.g. GRANT CREATE ON DATABASE ${database} TO ${user}), or use the store's owner`;
  } else if (code === '55P03') {
    text = `${where}: a row the store needs stayed locked by another process (${message}): try again once that process is done or gone`;
  } else if (code === '53300') {
    text = `${where} has no connection to spare (${message}): raise max_connections, or run fewer processes`;
  } else if (isConnectionError(error)) {
    text = `lost the connection to ${where} (${code || message}): the write in progress was not kept; resume the run once the server is back`;
  } else {
    text = `${where}: ${message}${code ? ` (${code})` : ''}`;
  }
  return new StageloopError('store', text, { cause: error });
}

/**
 * Runs `body` in one transaction on one pooled connection: COMMIT when it returns, ROLLBACK when it throws. A broken
 * connection is dropped from the pool rather than reused. A transaction the server ended because its process was
 * silent too long (stopped, say) was rolled back before COMMIT was sent, so it is tried once more on a fresh
 * connection; any other loss is reported (a loss during COMMIT is in doubt and is never retried).
 */
export async function inTransaction<Result>(
  pool: PostgresPool,
  body: (client: PostgresClient) => Promise<Result>,
): Promise<Result> {
  const first = await transactionOnce(pool, body);
  if (first.done) return first.result;
  const second = await transactionOnce(pool, body);
  if (second.done) return second.result;
  throw second.lost;
}

const idleTransactionEnded = '25P03';

function codeOf(error: unknown): string {
  return String((error as { code?: unknown })?.code ?? '');
}

type Attempt<Result> = { done: true; result: Result } | { done: false; lost: unknown };

async function transactionOnce<Result>(
  pool: PostgresPool,
  body: (client: PostgresClient) => Promise<Result>,
): Promise<Attempt<Result>> {
  const client = await pool.connect();
  let broken: unknown;
  // A checked-out client whose server ends the session emits 'error': without a listener it would end the process.
  const onError = (error: Error): void => void (broken ??= error);
  client.on('error', onError);
  let committing = false;
  try {
    await client.query('BEGIN');
    const result = await body(client);
    committing = true;
    await client.query('COMMIT');
    return { done: true, result };
  } catch (error) {
    if (isConnectionError(error) || broken !== undefined) {
      broken ??= error;
      if (!committing && codeOf(broken) === idleTransactionEnded) return { done: false, lost: error };
    } else {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError));
    }
    throw error;
  } finally {
    client.removeListener('error', onError);
    client.release(broken === undefined ? undefined : true);
  }
}

/** The schema a store's tables live in: a plain lower-case SQL name, never quoted text from elsewhere. */
export function checkSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new StageloopError(
      'config',
      `schema "${schema}" is not a plain lower-case SQL name: use letters, digits and "_" (at most 63)`,
    );
  return schema;
}

/** A quoted SQL identifier (the schema name). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
