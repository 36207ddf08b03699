// The PostgreSQL store's tables, in a schema of their own (default "stageloop"), and their version: migrations run
// once, under an advisory lock, in one transaction; a store written by a newer stageloop is refused.
import {
  inTransaction,
  quoteIdentifier,
  type PostgresPool,
  type PostgresQuery,
  type PostgresResult,
} from './postgres-connection.js';
import { StageloopError } from '../common/stageloop-error.js';

/** migrations[n] takes a store from schema n to n + 1. Never edit a shipped one. `S` is the quoted schema. */
export const postgresMigrations: ReadonlyArray<(S: string, channel: string) => string> = [
  // 1: runs, their journals and checkpoints (JSON as text: stored as written, hashed as written), the listing indexes.
  (S) => `
    CREATE TABLE ${S}.runs (
      id bigserial PRIMARY KEY, run_id text NOT NULL UNIQUE, pipeline text NOT NULL, fingerprint text NOT NULL,
      version text NOT NULL, input text NOT NULL, options text NOT NULL, created_at bigint NOT NULL,
      status text NOT NULL, updated_at bigint NOT NULL, epoch integer NOT NULL, owner_id text, owner_pid integer,
      owner_host text, lease_until bigint, head integer NOT NULL, iterations integer NOT NULL, tokens bigint NOT NULL,
      answer text, outcome text);
    CREATE INDEX runs_by_time ON ${S}.runs (created_at DESC, id DESC);
    CREATE INDEX runs_by_status ON ${S}.runs (status, created_at DESC, id DESC);
    CREATE TABLE ${S}.journal (
      run bigint NOT NULL REFERENCES ${S}.runs (id) ON DELETE CASCADE, seq integer NOT NULL, kind text NOT NULL,
      zone text NOT NULL, iteration integer NOT NULL, stage text, at bigint NOT NULL, data text NOT NULL,
      PRIMARY KEY (run, seq));
    CREATE TABLE ${S}.checkpoints (
      run bigint NOT NULL REFERENCES ${S}.runs (id) ON DELETE CASCADE, seq integer NOT NULL, position text NOT NULL,
      state text NOT NULL, state_hash text NOT NULL, at bigint NOT NULL, PRIMARY KEY (run, seq));`,
  // 2: sessions: each user's sessions, their turns, summary and durable facts.
  (S) => `
    CREATE TABLE ${S}.sessions (
      user_id text NOT NULL, session text NOT NULL, summary text NOT NULL, created_at bigint NOT NULL,
      updated_at bigint NOT NULL, PRIMARY KEY (user_id, session));
    CREATE TABLE ${S}.session_turns (
      user_id text NOT NULL, session text NOT NULL, seq integer NOT NULL, run_id text NOT NULL, task text NOT NULL,
      answer text NOT NULL, tools text NOT NULL, at bigint NOT NULL, PRIMARY KEY (user_id, session, seq));
    CREATE TABLE ${S}.session_facts (
      user_id text NOT NULL, session text NOT NULL, key text NOT NULL, value text NOT NULL, source_run text NOT NULL,
      updated_at bigint NOT NULL, PRIMARY KEY (user_id, session, key));`,
  // 3: a change feed: every committed change of a run's row notifies its id, so a server reads what changed, no polling.
  (S, channel) => `
    CREATE FUNCTION ${S}.notify_run_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_notify(${literal(channel)}, NEW.run_id); RETURN NULL; END $$;
    CREATE TRIGGER runs_changed AFTER INSERT OR UPDATE ON ${S}.runs FOR EACH ROW EXECUTE FUNCTION ${S}.notify_run_change();`,
  // 4: a session turn keeps how its run ended (a cancelled or failed turn is kept too, with its partial answer).
  (S) => `ALTER TABLE ${S}.session_turns ADD COLUMN status text NOT NULL DEFAULT 'completed';`,
  // 5: what each session turn spent, and what its folded turns spent, for the session budget.
  (S) => `
    ALTER TABLE ${S}.session_turns ADD COLUMN tokens bigint NOT NULL DEFAULT 0;
    ALTER TABLE ${S}.session_turns ADD COLUMN cost_usd double precision NOT NULL DEFAULT 0;
    ALTER TABLE ${S}.sessions ADD COLUMN folded_tokens bigint NOT NULL DEFAULT 0;
    ALTER TABLE ${S}.sessions ADD COLUMN folded_cost_usd double precision NOT NULL DEFAULT 0;`,
];
export const postgresSchemaVersion = postgresMigrations.length;

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The NOTIFY channel of a schema's run changes. */
export function changeChannel(schema: string): string {
  return `${schema}.runs`;
}

type Query = (query: PostgresQuery) => Promise<PostgresResult>;

async function versionOf(query: Query, schema: string): Promise<{ version: number; tables: string[] }> {
  const { rows } = await query({
    text: `SELECT to_regclass($1) IS NOT NULL AS versioned, coalesce((SELECT array_agg(tablename::text ORDER BY tablename) FROM pg_tables WHERE schemaname = $2), '{}') AS tables`,
    values: [`${quoteIdentifier(schema)}.schema_version`, schema],
  });
  const tables = rows[0]!.tables as string[];
  if (rows[0]!.versioned !== true) return { version: 0, tables };
  const version = await query({
    text: `SELECT max(version) AS version FROM ${quoteIdentifier(schema)}.schema_version`,
  });
  return { version: Number(version.rows[0]!.version ?? 0), tables };
}

function checkVersion(version: number, where: string): void {
  if (version > postgresSchemaVersion) {
    throw new StageloopError(
      'store',
      `${where} was written by a newer stageloop (store schema ${version}; this one reads up to ${postgresSchemaVersion}): upgrade stageloop, or pass another --store URL`,
    );
  }
}

/** Creates or migrates the store's schema; a user without the rights to change it needs only an up-to-date one. */
export async function migratePostgres(pool: PostgresPool, schema: string, where: string): Promise<void> {
  const found = await versionOf((query) => pool.query(query), schema);
  checkVersion(found.version, where);
  if (found.version === postgresSchemaVersion) return;
  const S = quoteIdentifier(schema);
  await inTransaction(pool, async (client) => {
    // One migrator at a time per schema; read again under the lock, another process may have migrated meanwhile.
    await client.query({ text: 'SELECT pg_advisory_xact_lock(hashtext($1))', values: [`stageloop schema ${schema}`] });
    const exists = await client.query({ text: 'SELECT 1 FROM pg_namespace WHERE nspname = $1', values: [schema] });
    // Asked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE right on the database even when the schema exists.
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${S}`);
    const { version, tables } = await versionOf((query) => client.query(query), schema);
    checkVersion(version, where);
    if (version === 0 && tables.length > 0) {
      throw new StageloopError(
        'store',
        `${where}: schema "${schema}" holds tables that are not a stageloop store (${tables.join(', ')}): pass another schema, or another database in the --store URL`,
      );
    }
    if (version === 0)
      await client.query(
        `CREATE TABLE ${S}.schema_version (version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())`,
      );
    for (let step = version; step < postgresSchemaVersion; step++) {
      await client.query(postgresMigrations[step]!(S, changeChannel(schema)));
      await client.query({ text: `INSERT INTO ${S}.schema_version (version) VALUES ($1)`, values: [step + 1] });
    }
  });
}
