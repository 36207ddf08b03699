// A session turn whose prompt shows the session's facts between spotlight marks replays identically: the marks'
// boundary is drawn through the run's journaled ids, not from an unrecorded random source.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

let home = '';
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'stageloop-facts-replay-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));
const cli = (args: string[]) => runCli(args, { STAGELOOP_HOME: home });

describe('replay of a session run with facts', { timeout: 120_000 }, () => {
  it.each(['react', 'plan-execute-replan'])(
    '%s: the spotlighted facts come back with the same boundary',
    async (pipeline) => {
      expect((await cli(['facts', 'set', 'city', 'Lisbon', '--session', 's1'])).code).toBe(0);
      const run = await cli(['run', '--json', '--pipeline', pipeline, '--session', 's1', 'What is 2 * 3?']);
      const { runId, status } = JSON.parse(run.stdout) as { runId: string; status: string };
      expect(status).toBe('completed');
      const replay = await cli(['replay', runId]);
      expect(replay.stdout + replay.stderr).toContain('identical');
      expect(replay.code).toBe(0);
    },
  );
});
