// `stageloop runs prune [--checkpoints] [--older-than DAYS] [--dry-run]`: the store's retention knobs.
import { parseArgs } from 'node:util';
import { messageOf } from '../../src/common/error-message.js';
import type { RunStore } from '../../src/store/types.js';
import type { CliStreams } from './run-command.js';
import { StageloopError } from '../../src/common/stageloop-error.js';

export const pruneUsage = `Usage: stageloop runs prune [--checkpoints] [--older-than DAYS] [--dry-run] [--store URL]
  --checkpoints      delete the checkpoints of ended runs, keeping each run's last one (show and replay need it)
  --older-than DAYS  delete ended runs (completed, stopped, failed, cancelled) last changed more than DAYS days ago,
                     with their journals; running and interrupted runs are never deleted
  --dry-run          count what would be deleted, delete nothing
Retention is kept by PostgreSQL stores (docs/postgres.md).`;

export async function pruneCommand(
  argv: string[],
  streams: CliStreams,
  store: RunStore,
  now: () => number = Date.now,
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        checkpoints: { type: 'boolean' },
        'older-than': { type: 'string' },
        'dry-run': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new StageloopError(
      'usage',
      `${messageOf(error).split('\n')[0]!.replace(/\.$/, '')}: run "stageloop runs prune --help"`,
    );
  }
  if (values.help) return (void streams.stdout.write(`${pruneUsage}\n`), 0);
  const days = values['older-than'] === undefined ? undefined : Number(values['older-than']);
  if (days !== undefined && !(Number.isFinite(days) && days >= 0))
    throw new StageloopError('usage', `--older-than must be a number of days >= 0, got "${values['older-than']}"`);
  if (days === undefined && !values.checkpoints)
    throw new StageloopError(
      'usage',
      'stageloop runs prune needs --checkpoints, --older-than DAYS or both: see "stageloop runs prune --help"',
    );
  if (store.prune === undefined)
    throw new StageloopError(
      'usage',
      'this store keeps no retention knobs: stageloop runs prune works on PostgreSQL stores (--store postgres://...)',
    );
  const report = await store.prune({
    checkpoints: values.checkpoints === true,
    ...(days !== undefined && { endedBefore: now() - days * 86_400_000 }),
    dryRun: values['dry-run'] === true,
  });
  const verb = values['dry-run'] ? 'would delete' : 'deleted';
  streams.stdout.write(
    `${verb} ${report.runs} ended run${report.runs === 1 ? '' : 's'} and ${report.checkpoints} earlier checkpoint${report.checkpoints === 1 ? '' : 's'} of ended runs\n`,
  );
  return 0;
}
