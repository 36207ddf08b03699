// postgresStore: the shared conformance suite against a real PostgreSQL server the test starts, then what only a
// server shows: fencing across connections, schema versions, and one line for each way the server can be wrong.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSessions } from '../../src/sessions/postgres-sessions.js';
import { createPool, inTransaction } from '../../src/store/postgres-connection.js';
import { postgresMigrations, postgresSchemaVersion } from '../../src/store/postgres-schema.js';
import { postgresStore } from '../../src/store/postgres-store.js';
import { runPostgresTests, startPostgres, type PostgresInstance } from '../support/postgres-server.js';
import { freePort } from '../workers/redis-server.js';
import {
  checkpoint,
  deadPid,
  entry,
  header,
  liveOwner,
  outcome,
  sharedStoreFencing,
  storeConformance,
  type StoreFactory,
} from './conformance.js';
import { storeLeaseConformance } from './conformance-leases.js';

/** A plain client on the server, as an operator's psql would be. */
async function admin<Result>(url: string, body: (client: pg.Client) => Promise<Result>): Promise<Result> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

let server: PostgresInstance | undefined;
let count = 0;

describe.runIf(runPostgresTests)('postgresStore', () => {
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => server?.stop(), 60_000);

  // Each store gets its own schema: a fresh, empty store on the same server.
  const factory: StoreFactory = (clock) => postgresStore(server!.url, { clock, schema: `conformance_${++count}` });
  storeConformance('postgresStore', factory);
  storeLeaseConformance('postgresStore', factory);

  sharedStoreFencing('database', () => postgresStore(server!.url, { schema: 'two' }));

  it('a transaction the server ended while its process was silent is tried again on a fresh connection, never a crash', async () => {
    const poolErrors: Error[] = [];
    const pool = createPool(server!.url, { idleTransactionTimeoutMs: 100 }, (error) => poolErrors.push(error));
    let attempts = 0;
    try {
      const answer = await inTransaction(pool, async (client) => {
        attempts++;
        if (attempts === 1) {
          // Silent inside the transaction until the server ends the session (idle_in_transaction_session_timeout).
          await new Promise<void>((resolve) => client.on('error', () => resolve()));
        }
        const result = await client.query('SELECT 41 + 1 AS answer');
        return (result.rows[0] as { answer: number }).answer;
      });
      expect(answer).toBe(42);
      expect(attempts).toBe(2);
    } finally {
      await pool.end();
    }
  });

  it('refuses a store written by a newer stageloop, and migrates an older one keeping its runs', async () => {
    const newer = postgresStore(server!.url, { schema: 'newer' });
    await newer.list();
    await newer.close();
    await admin(server!.url, (client) => client.query('INSERT INTO newer.schema_version (version) VALUES (99)'));
    const refused = postgresStore(server!.url, { schema: 'newer' });
    await expect(refused.list()).rejects.toThrow(
      `was written by a newer stageloop (store schema 99; this one reads up to ${postgresSchemaVersion}): upgrade stageloop`,
    );
    await refused.close();

    await admin(server!.url, async (client) => {
      await client.query(
        'CREATE SCHEMA older; CREATE TABLE older.schema_version (version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())',
      );
      await client.query(postgresMigrations[0]!('"older"', 'older.runs'));
      await client.query('INSERT INTO older.schema_version (version) VALUES (1)');
    });
    const older = postgresStore(server!.url, { schema: 'older' });
    await older.create(header('kept'), liveOwner('alice'), 5_000);
    expect((await older.list()).map((run) => run.runId)).toEqual(['kept']);
    await older.close();
    const sessions = postgresSessions(server!.url, { schema: 'older' });
    await sessions.setFact({ user: 'u', session: 's' }, { key: 'k', value: 'v', sourceRun: 'kept', updated: 1 });
    sessions.close();
    const versions = await admin(server!.url, (client) =>
      client.query('SELECT version FROM older.schema_version ORDER BY version'),
    );
    expect(versions.rows.map((row) => row.version)).toEqual(
      Array.from({ length: postgresSchemaVersion }, (_, index) => index + 1),
    );

    await admin(server!.url, (client) =>
      client.query('CREATE SCHEMA foreign_tables; CREATE TABLE foreign_tables.orders (id int)'),
    );
    const foreign = postgresStore(server!.url, { schema: 'foreign_tables' });
    await expect(foreign.list()).rejects.toThrow(
      'schema "foreign_tables" holds tables that are not a stageloop store (orders)',
    );
    await foreign.close();
  });

  it('names a malformed URL, an unreachable server and a missing database in one line each, never the password', async () => {
    expect(() => postgresStore('postgres://')).toThrow(
      '"postgres://" is not a PostgreSQL URL: write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    );
    const port = await freePort();
    const unreachable = postgresStore(`postgres://app:s3cret@127.0.0.1:${port}/runs`);
    const failure = unreachable.list();
    await expect(failure).rejects.toThrow(
      `cannot reach PostgreSQL at postgres://app:***@127.0.0.1:${port}/runs (ECONNREFUSED): start the server there, or pass the right --store URL`,
    );
    await expect(failure).rejects.not.toThrow('s3cret');
    await unreachable.close();
    const missing = postgresStore(`postgres://postgres:s3cret@127.0.0.1:${server!.port}/nowhere`);
    await expect(missing.get('r1')).rejects.toThrow(
      `PostgreSQL at postgres://postgres:***@127.0.0.1:${server!.port}/nowhere has no database "nowhere": create it (createdb nowhere), or name another in the --store URL`,
    );
    await missing.close();
  });

  it('names missing rights: a user who may not create the schema, and one who may read but not write', async () => {
    await admin(server!.url, (client) => client.query('CREATE ROLE reader LOGIN; CREATE ROLE nobody LOGIN'));
    const owner = postgresStore(server!.url, { schema: 'guarded' });
    await owner.create(header('r1'), liveOwner('alice'), 5_000);
    await owner.close();
    await admin(server!.url, (client) =>
      client.query('GRANT USAGE ON SCHEMA guarded TO reader; GRANT SELECT ON ALL TABLES IN SCHEMA guarded TO reader'),
    );
    const reading = postgresStore(server!.urlFor('postgres', 'reader'), { schema: 'guarded' });
    expect((await reading.list()).map((run) => run.runId)).toEqual(['r1']);
    await expect(reading.create(header('r2'), liveOwner('bob'), 5_000)).rejects.toThrow(
      /^user "reader" lacks the rights the store needs on PostgreSQL at postgres:\/\/reader@127\.0\.0\.1:\d+\/postgres \(permission denied for table runs\): grant them/,
    );
    await reading.close();
    const fresh = postgresStore(server!.urlFor('postgres', 'nobody'), { schema: 'not_yet' });
    await expect(fresh.list()).rejects.toThrow(
      /^user "nobody" lacks the rights the store needs .*\(permission denied for database postgres\)/,
    );
    await fresh.close();
  });

  it('a write whose connection is lost keeps nothing of itself, names the loss, and the next write reconnects', async () => {
    const store = postgresStore(server!.url, { schema: 'lost' });
    const claim = await store.create(header('r1'), liveOwner('alice'), 60_000);
    await store.append(claim, [entry(1)]);
    await admin(server!.url, async (client) => {
      // Hold the run's row so the store's write waits inside its transaction, then cut that connection.
      await client.query('BEGIN');
      await client.query("SELECT 1 FROM lost.runs WHERE run_id = 'r1' FOR UPDATE");
      const write = store.append(claim, [entry(2), entry(3)], { checkpoint: checkpoint(3) });
      write.catch(() => undefined);
      for (let tries = 0; ; tries++) {
        const waiting = await client.query(
          "SELECT pid FROM pg_stat_activity WHERE application_name = 'stageloop' AND wait_event_type = 'Lock'",
        );
        if (waiting.rows.length > 0) {
          await client.query('SELECT pg_terminate_backend($1)', [waiting.rows[0]!.pid]);
          break;
        }
        if (tries > 2_000) throw new Error('the store write never waited on the lock');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await expect(write).rejects.toThrow(
        /^lost the connection to PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres \(57P01\): the write in progress was not kept; resume the run once the server is back$/,
      );
      await client.query('ROLLBACK');
    });
    expect((await store.journal('r1')).map((item) => item.seq)).toEqual([1]);
    expect(await store.latestCheckpoint('r1')).toBeUndefined();
    await store.append(claim, [entry(2)]);
    expect((await store.get('r1'))?.head).toBe(2);
    await store.close();
  });

  it('prunes the earlier checkpoints of ended runs and ended runs older than a time, never a running one', async () => {
    const store = postgresStore(server!.url, { schema: 'pruned' });
    const alice = liveOwner('alice');
    const old = await store.create(header('old', { createdAt: 1 }), alice, 60_000);
    await store.append(old, [entry(1), entry(2)], { checkpoint: checkpoint(2) });
    await store.finish(old, outcome());
    const kept = await store.create(header('kept'), alice, 60_000);
    await store.append(kept, [entry(1)], { checkpoint: checkpoint(1) });
    await store.append(kept, [entry(2)], { checkpoint: checkpoint(2) });
    await store.finish(kept, outcome({ status: 'failed', answer: null }));
    const live = await store.create(header('live'), alice, 60_000);
    await store.append(live, [entry(1)], { checkpoint: checkpoint(1) });
    await store.append(live, [entry(2)], { checkpoint: checkpoint(2) });
    await admin(server!.url, (client) =>
      client.query("UPDATE pruned.runs SET updated_at = 5 WHERE run_id IN ('old', 'live')"),
    );
    expect(await store.prune!({ checkpoints: true, endedBefore: 1_000, dryRun: true })).toEqual({
      runs: 1,
      checkpoints: 1,
    });
    expect(await store.prune!({ checkpoints: true, endedBefore: 1_000 })).toEqual({ runs: 1, checkpoints: 1 });
    expect((await store.list()).map((run) => run.runId).sort()).toEqual(['kept', 'live']);
    expect((await store.checkpoints('kept')).map((item) => item.seq)).toEqual([2]);
    expect((await store.checkpoints('live')).map((item) => item.seq)).toEqual([1, 2]);
    const orphans = await admin(server!.url, (client) =>
      client.query('SELECT count(*)::int AS count FROM pruned.journal WHERE run NOT IN (SELECT id FROM pruned.runs)'),
    );
    expect(orphans.rows[0]!.count).toBe(0);
    await store.close();
  });
});
