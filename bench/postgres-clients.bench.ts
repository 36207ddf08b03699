// Which PostgreSQL client the store keeps: `pg` 8 against `postgres` 3, on the write the store makes most (one fenced
// journal append: lock the run's row, insert an entry, update the row, commit), against one real local server.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import postgres from 'postgres';
import { startPostgres } from '../tests/support/postgres-server.js';
import { format } from './measure.js';

const schema = `CREATE TABLE runs (id bigint PRIMARY KEY, epoch int NOT NULL, head int NOT NULL, updated_at bigint NOT NULL);
  CREATE TABLE journal (run bigint NOT NULL, seq int NOT NULL, data text NOT NULL, PRIMARY KEY (run, seq));`;
const entry = JSON.stringify({ request: { messages: ['x'.repeat(1_800)] }, usage: { inputTokens: 812 } });

const cpuMicroseconds = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

async function measure(
  label: string,
  setup: () => Promise<void>,
  write: (run: number, seq: number) => Promise<void>,
  count = 400,
): Promise<string> {
  await setup();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < 6; round++) {
    const start = performance.now();
    const startCpu = cpuMicroseconds();
    for (let seq = 1; seq <= count; seq++) await write(round, seq);
    if (round > 0) {
      wall.push(((performance.now() - start) * 1_000) / count);
      cpu.push((cpuMicroseconds() - startCpu) / count);
    }
  }
  return `| ${label} | ${format(Math.min(...wall), 0)} / ${format(Math.min(...cpu), 0)} |`;
}

export async function run(): Promise<void> {
  const server = await startPostgres();
  try {
    const pool = new pg.Pool({ connectionString: server.url, max: 1 });
    const sql = postgres(server.url, { max: 1, onnotice: () => undefined });
    const rows: string[] = [];
    const reset = (query: (text: string) => Promise<unknown>) => async () => {
      await query('DROP TABLE IF EXISTS runs, journal');
      for (const statement of schema.split(';').filter((text) => text.trim() !== '')) await query(statement);
      for (let round = 0; round < 6; round++) await query(`INSERT INTO runs VALUES (${round}, 1, 0, 0)`);
    };
    rows.push(
      await measure(
        'pg 8 (one client, statements in turn)',
        reset((text) => pool.query(text)),
        async (runId, seq) => {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            await client.query({
              name: 'lock',
              text: 'SELECT epoch, head FROM runs WHERE id = $1 FOR UPDATE',
              values: [runId],
            });
            await client.query({
              name: 'insert',
              text: 'INSERT INTO journal (run, seq, data) VALUES ($1, $2, $3)',
              values: [runId, seq, entry],
            });
            await client.query({
              name: 'update',
              text: 'UPDATE runs SET head = $2, updated_at = $3 WHERE id = $1',
              values: [runId, seq, Date.now()],
            });
            await client.query('COMMIT');
          } finally {
            client.release();
          }
        },
      ),
    );
    rows.push(
      await measure(
        'postgres 3 (sql.begin, awaited in turn)',
        reset((text) => sql.unsafe(text)),
        async (runId, seq) => {
          await sql.begin(async (transaction) => {
            await transaction`SELECT epoch, head FROM runs WHERE id = ${runId} FOR UPDATE`;
            await transaction`INSERT INTO journal (run, seq, data) VALUES (${runId}, ${seq}, ${entry})`;
            await transaction`UPDATE runs SET head = ${seq}, updated_at = ${Date.now()} WHERE id = ${runId}`;
          });
        },
      ),
    );
    rows.push(
      await measure(
        'postgres 3 (sql.begin, writes pipelined)',
        reset((text) => sql.unsafe(text)),
        async (runId, seq) => {
          await sql.begin(async (transaction) => {
            await transaction`SELECT epoch, head FROM runs WHERE id = ${runId} FOR UPDATE`;
            await Promise.all([
              transaction`INSERT INTO journal (run, seq, data) VALUES (${runId}, ${seq}, ${entry})`,
              transaction`UPDATE runs SET head = ${seq}, updated_at = ${Date.now()} WHERE id = ${runId}`,
            ]);
          });
        },
      ),
    );
    console.log(
      'One fenced append (lock row, insert 1.9 KB entry, update row, commit), µs per write, wall / CPU of this process, best of 5 rounds of 400',
    );
    console.log('| client | µs per write |');
    console.log('|---|---|');
    for (const row of rows) console.log(row);
    await pool.end();
    await sql.end();
  } finally {
    await server.stop();
  }
}
