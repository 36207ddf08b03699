// `stageloop runs [--json] [--status S] [--limit N]`: the store's runs, newest first, one line each.
import { terminalSafe, errorLine, terminalSafeJson } from './terminal-text.js';
import { cliMessageOf } from './command-name.js';
import { leaseIsLive } from '../../src/store/run-store.js';
import type { RunStore, RunSummary, StoredRunStatus } from '../../src/store/types.js';
import type { CliStreams, CommandModule } from './command.js';
import { parseFlags } from './args.js';
import { openRunStore } from '../store.js';
import { takeStoreFlag } from './store-location.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { entriesOf, isKind } from '../../src/durable/journal-entries.js';

const statuses: readonly StoredRunStatus[] = ['running', 'completed', 'stopped', 'failed', 'cancelled', 'interrupted'];
export const runsUsage = `Usage: stageloop runs [--json] [--status ${statuses.join('|')}] [--limit N]
Lists the recorded runs, newest first (default limit 20). "running (owner gone)" marks a run whose process died:
continue it with "stageloop resume RUN" ("stageloop serve" and workers do so by themselves: "recovered by ..." says
which one did). "stageloop runs prune --help": deleting old runs and checkpoints.`;
const taskWidth = 40;

interface RunsFlags {
  json: boolean;
  status?: StoredRunStatus;
  limit: number;
}

function parseRunsFlags(argv: string[]): RunsFlags | 'help' {
  const options = {
    json: { type: 'boolean' },
    status: { type: 'string' },
    limit: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values, positionals } = parseFlags('runs', argv, options);
  if (values.help) return 'help';
  if (positionals.length > 0)
    throw new StageloopError(
      'usage',
      `stageloop runs takes no arguments, got "${positionals[0]}": use "stageloop show RUN" for one run`,
    );
  const status = values.status;
  if (status !== undefined && !statuses.includes(status as StoredRunStatus))
    throw new StageloopError('usage', `--status must be one of ${statuses.join(', ')}, got "${status}"`);
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new StageloopError('usage', `--limit must be a whole number >= 1, got "${values.limit}"`);
  return { json: values.json ?? false, limit, ...(status !== undefined && { status: status as StoredRunStatus }) };
}

/** "running" is what the record says; whether anyone still runs it is the owner's lease. */
function shownStatus(run: RunSummary, now: number, recoveredBy: string | null): string {
  if (run.status === 'running' && !leaseIsLive(run.owner, run.leaseUntil, now)) return 'running (owner gone)';
  return recoveredBy === null ? run.status : `${run.status} (recovered by ${recoveredBy})`;
}

/** Who took the run up on its own, from its last resume's journal marker; only a run claimed again has one. */
async function recoveredByOf(store: RunStore, run: RunSummary): Promise<string | null> {
  if (run.epoch < 2) return null;
  const markers = entriesOf(await store.journal(run.runId)).filter((entry) => isKind(entry, 'event'));
  const last = markers.at(-1);
  return last !== undefined && isKind(last, 'event') ? (last.data.recoveredBy ?? null) : null;
}

function taskOf(run: RunSummary): string {
  const task = typeof run.input.task === 'string' ? run.input.task : '';
  return task.replace(/\s+/g, ' ').trim();
}

function shorten(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** Local time, to the second: when the run started. */
function startTime(ms: number): string {
  const date = new Date(ms);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

function table(runs: RunSummary[], now: number, recovered: ReadonlyArray<string | null>): string {
  const rows = runs.map((run, index) => [
    run.runId,
    run.pipeline,
    shownStatus(run, now, recovered[index]!),
    startTime(run.createdAt),
    String(run.iterations),
    String(run.tokens),
    shorten(taskOf(run), taskWidth),
  ]);
  const all = [['RUN', 'PIPELINE', 'STATUS', 'STARTED', 'ITER', 'TOKENS', 'TASK'], ...rows];
  const widths = all[0]!.map((_, column) => Math.max(...all.map((row) => row[column]!.length)));
  return all
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
    )
    .join('\n');
}

function jsonOf(run: RunSummary, now: number, recoveredBy: string | null) {
  return {
    runId: run.runId,
    pipeline: run.pipeline,
    status: run.status,
    held: leaseIsLive(run.owner, run.leaseUntil, now),
    recoveredBy,
    task: taskOf(run),
    startedAt: new Date(run.createdAt).toISOString(),
    updatedAt: new Date(run.updatedAt).toISOString(),
    iterations: run.iterations,
    tokens: run.tokens,
    answer: run.answer,
    stopReason: run.outcome?.stopReason ?? null,
  };
}

/** Runs `stageloop runs` against `store` and returns the exit code: 0, 2 for a bad flag, 1 when the store fails. */
export async function runsCommand(
  argv: string[],
  streams: CliStreams,
  store: RunStore,
  now: () => number = Date.now,
): Promise<number> {
  if (argv[0] === 'prune') return (await import('./prune-command.js')).pruneCommand(argv.slice(1), streams, store, now);
  let flags: RunsFlags | 'help';
  try {
    flags = parseRunsFlags(argv);
  } catch (error) {
    streams.stderr.write(errorLine(cliMessageOf(error)));
    return 2;
  }
  if (flags === 'help') {
    streams.stdout.write(`${runsUsage}\n`);
    return 0;
  }
  let runs: RunSummary[];
  let recovered: Array<string | null>;
  try {
    runs = await store.list({ limit: flags.limit, ...(flags.status && { status: flags.status }) });
    recovered = await Promise.all(runs.map((run) => recoveredByOf(store, run)));
  } catch (error) {
    streams.stderr.write(errorLine(cliMessageOf(error)));
    return 1;
  }
  const at = now();
  if (flags.json)
    streams.stdout.write(`${terminalSafeJson(runs.map((run, index) => jsonOf(run, at, recovered[index]!)))}\n`);
  else if (runs.length === 0)
    streams.stdout.write(
      flags.status
        ? `no ${flags.status} runs in this store\n`
        : 'no runs in this store yet: "stageloop run TASK" records one\n',
    );
  else streams.stdout.write(`${terminalSafe(table(runs, at, recovered))}\n`);
  return 0;
}

/** `stageloop runs [--store PATH] ...`: the store is taken out first, since `runs prune` parses flags of its own. */
export const runs: CommandModule = {
  usage: () => runsUsage,
  async run(argv, io) {
    const { store: path, rest } = takeStoreFlag(argv);
    const { store } = await openRunStore(path, io.env);
    try {
      return await runsCommand(rest, io, store);
    } finally {
      await store.close();
    }
  },
};
