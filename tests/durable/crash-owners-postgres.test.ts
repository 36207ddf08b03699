// The owner tests of crash-owners.ts on PostgreSQL, and a server restart in the middle of a run: the run ends
// failed (store) or goes on once reconnected, never with a half-written journal, and resumed it equals a run never
// interrupted.
import { describe, expect, it } from 'vitest';
import { runPostgresTests } from '../support/postgres-server.js';
import { resultOf } from './crash-lab.js';
import { describeOwners } from './crash-owners.js';
import { expectRecovered, lastAcknowledged, type Interruption } from './crash-recovery.js';

describe.runIf(runPostgresTests)('PostgreSQL', () => {
  describeOwners('postgres', (currentLab) => {
    it('a server restart mid-run: failed (store) or continued, nothing half-written; resumed, it equals the uninterrupted run', async () => {
      const lab = currentLab();
      const setup = await lab.setUp('restart', 'answer');
      try {
        const first = lab.launch(setup, 'start', 1);
        await first.waitForLine((line) => line === 'tool 3');
        await lab.postgres!.restart();
        expect((await first.exited).code).toBe(0);
        const ended = resultOf(first);
        const interruptions: Interruption[] = [];
        let finalResult = ended;
        if (ended.status === 'failed') {
          expect(ended.stopReason.kind).toBe('store');
          expect(ended.stopReason.message).toMatch(/PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres/);
          interruptions.push({
            attempt: 1,
            journalAfter: await setup.store.journal(setup.config.runId),
            acknowledged: lastAcknowledged(first.lines),
          });
          const resumed = lab.launch(setup, 'resume', 2);
          expect((await resumed.exited).code).toBe(0);
          finalResult = resultOf(resumed);
        }
        await expectRecovered(setup.store, setup.config, await lab.reference('answer'), interruptions, finalResult);
      } finally {
        await lab.tearDown(setup);
      }
    }, 90_000);
  });
});
