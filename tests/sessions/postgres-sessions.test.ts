// The PostgreSQL adapter of the session store: the shared contract against a real server the test starts, then what
// only a server shows (two connections numbering turns at once, the runs' schema shared).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSessions } from '../../src/sessions/postgres-sessions.js';
import { postgresStore } from '../../src/store/postgres-store.js';
import { runPostgresTests, startPostgres, type PostgresInstance } from '../support/postgres-server.js';
import { sessionStoreConformance } from './conformance.js';

let server: PostgresInstance | undefined;
let count = 0;
const scope = { user: 'default', session: 's1' };

describe.runIf(runPostgresTests)('postgresSessions', () => {
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => server?.stop(), 60_000);

  sessionStoreConformance('postgres', () => postgresSessions(server!.url, { schema: `sessions_${++count}` }));

  it('numbers turns once when two connections append to one session at the same time', async () => {
    const [first, second] = [
      postgresSessions(server!.url, { schema: 'racing' }),
      postgresSessions(server!.url, { schema: 'racing' }),
    ];
    const turns = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (index % 2 ? first : second).appendTurn(scope, {
          runId: `r${index}`,
          task: `t${index}`,
          answer: 'a',
          tools: [],
          at: index,
        }),
      ),
    );
    expect(turns.map((turn) => turn.seq).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await first.load(scope)).turns).toHaveLength(10);
    first.close();
    second.close();
  });

  it('keeps sessions in the schema of the runs: one store, one set of migrations', async () => {
    const sessions = postgresSessions(server!.url, { schema: 'shared' });
    await sessions.setFact(scope, { key: 'unit', value: 'cm', sourceRun: 'r1', updated: 1 });
    const runs = postgresStore(server!.url, { schema: 'shared' });
    expect(await runs.list()).toEqual([]);
    await runs.close();
    expect(await sessions.listFacts(scope)).toEqual([{ key: 'unit', value: 'cm', sourceRun: 'r1', updated: 1 }]);
    sessions.close();
  });
});
