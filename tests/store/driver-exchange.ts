// One side of the driver exchange: writes a finished run into a store file with one SQLite driver and reads back every
// run there. Imported by the test, and run as `node --import tsx driver-exchange.ts DRIVER FILE RUN` under another Node.
import { fileURLToPath } from 'node:url';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import type { SqliteDriverName } from '../../src/store/sqlite-driver.js';
import { checkpoint, entry, header, liveOwner, outcome } from './store-fixtures.js';

/** Everything a reader sees of a store: each run's summary, journal and latest checkpoint. */
export async function snapshot(file: string, driver: SqliteDriverName): Promise<unknown> {
  const store = sqliteStore(file, { driver });
  try {
    const runs = await store.list();
    return await Promise.all(
      runs.map(async (run) => ({
        run,
        journal: await store.journal(run.runId),
        checkpoint: await store.latestCheckpoint(run.runId),
      })),
    );
  } finally {
    await store.close();
  }
}

/** Writes run `runId` (three entries, a checkpoint, an outcome) with `driver`. */
export async function writeRun(file: string, driver: SqliteDriverName, runId: string): Promise<void> {
  const store = sqliteStore(file, { driver });
  try {
    const claim = await store.create(
      header(runId, { input: { task: `ünïcode task of ${runId}` } }),
      liveOwner(runId),
      5_000,
    );
    await store.append(claim, [entry(1), entry(2, { text: 'two' }), entry(3, { nested: { list: [1, 2.5, null] } })], {
      checkpoint: checkpoint(3, { iteration: 2, big: 2 ** 40 }),
    });
    await store.finish(claim, outcome({ result: { runId } }));
  } finally {
    await store.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [driver, file, runId] = process.argv.slice(2) as [SqliteDriverName, string, string];
  await writeRun(file, driver, runId);
  process.stdout.write(`${JSON.stringify(await snapshot(file, driver))}\n`);
}
