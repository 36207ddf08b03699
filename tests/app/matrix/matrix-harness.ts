// The harness of the feature x lifecycle matrix: a row is a feature (the `stageloop run` flags that turn it on, and
// what else it needs); a column is a lifecycle verb run through the real CLI, server or worker. Every cell compares
// its outcome with the row's uninterrupted run. A new feature is one more row in feature-matrix.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliRun, type StartedCli } from '../../support/run-cli.js';
import { startScriptedModel, type ScriptedModel } from './scripted-model.js';

export interface Row {
  name: string;
  /** The run flags of the feature; `cell` names the cell (for a session name of its own). */
  flags(context: RowContext, cell: string): string[];
  /** The flags that make the run wait for a person (default --approve-all-tools). */
  approvalFlags?: string[];
  task?: string;
  /** How many calls the row's pause waits for, when it is more than one (steps side by side wait together). */
  waits?: number;
  /** How many approvals the approve cell's run takes, when it is more than one (it pauses again after the first). */
  rounds?: number;
  /** Checked after a cell's run completed, e.g. a session's next turn. */
  after?(context: RowContext, cell: string): Promise<void>;
  /** What a person approving answers an MCP server's question with (the approve cell's --answer, the server cell's
   * arguments): a row whose run waits on a question, not on a call. */
  answer?: Record<string, unknown>;
  /** Checks what the row's MCP server was answered in a cell that a person decided through the server. */
  answered?(context: RowContext, cell: string): void;
  /** Checks a worker's run of the row (submit's result; `store`: the worker's store flags), when the worker cannot end
   * it alone as the row's run ends. */
  submitted?(context: RowContext, run: CliRun, store: string[]): Promise<void>;
  /** Cells of the row's own in place of the matrix's, by column (a lifecycle a question goes through differently). */
  cells?: Record<string, (context: RowContext) => Promise<void>>;
}

export interface RowContext {
  model: ScriptedModel;
  folder: string;
  env: Record<string, string>;
  /** A file in the row's folder with this JSON. */
  file(name: string, content: unknown): string;
  cli(args: string[]): Promise<CliRun>;
}

/** What a run ended with, as every surface reports it. */
export interface Outcome {
  status: string;
  answer: string | null;
  output?: unknown;
}

export const outcomeOf = (result: { status: string; answer?: string | null; output?: unknown }): Outcome => ({
  status: result.status,
  answer: result.answer ?? null,
  ...(result.output !== undefined && { output: result.output }),
});

export interface Paused {
  runId: string;
  pending: Array<{ id: string; tool: string }>;
}

/** The last line of stdout as JSON (submit prints the run id first). */
export function parseJson<T>(run: CliRun, what: string): T {
  try {
    return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as T;
  } catch {
    throw new Error(`${what}: exit ${run.code}, stdout ${JSON.stringify(run.stdout)}, stderr ${run.stderr}`);
  }
}

/** A row's model and folder (a given folder keeps the row's store: STAGELOOP_HOME is in `env`). */
export async function rowContext(
  env: Record<string, string>,
  folder = mkdtempSync(join(tmpdir(), 'stageloop-matrix-')),
): Promise<RowContext> {
  const model = await startScriptedModel();
  const rowEnv = { OPENAI_API_KEY: 'sk-test', STAGELOOP_HOME: folder, ...env };
  return {
    model,
    folder,
    env: rowEnv,
    file(name, content) {
      const path = join(folder, name);
      writeFileSync(path, JSON.stringify(content));
      return path;
    },
    cli: (args) => runCli(args, rowEnv),
  };
}

/** The model flags every cell's run takes: recorded in the recipe, so serve and worker call the row's model too. */
export const modelFlags = (context: RowContext) => ['--base-url', context.model.url, '--model', 'test-model'];

export const taskOf = (row: Row) => row.task ?? 'What is 12 * 7?';

export function runArgs(row: Row, context: RowContext, cell: string, extra: string[] = []): string[] {
  return ['run', '--json', ...modelFlags(context), ...row.flags(context, cell), ...extra, taskOf(row)];
}

/** Runs the row with approvals on; the run must pause (exit 4). */
export async function pausedRun(row: Row, context: RowContext, cell: string, extra: string[] = []): Promise<Paused> {
  const run = await context.cli(
    runArgs(row, context, cell, [...(row.approvalFlags ?? ['--approve-all-tools']), ...extra]),
  );
  const paused = parseJson<Paused & { status: string }>(run, `${row.name} / ${cell}: the paused run`);
  if (run.code !== 4 || paused.status !== 'interrupted')
    throw new Error(
      `${row.name} / ${cell}: expected a pause (exit 4), got exit ${run.code}: ${run.stdout}${run.stderr}`,
    );
  if (paused.pending.length !== (row.waits ?? paused.pending.length))
    throw new Error(
      `${row.name} / ${cell}: expected ${row.waits} calls waiting, got ${JSON.stringify(paused.pending)}`,
    );
  return paused;
}

/** Approves every pending call of a run in new processes until it ends (`firstRound`: the first approval's ids and
 * flags, e.g. a question's --answer); returns the last --json result and how many approvals it took (a run may pause
 * again after one, as a handoff's target does). */
export async function approveUntilDone(
  context: RowContext,
  runId: string,
  firstRound: string[] = [],
): Promise<{ run: CliRun; result: Outcome & Partial<Paused>; rounds: number }> {
  for (let round = 1; ; round++) {
    const run = await context.cli(['approve', runId, ...(round === 1 ? firstRound : []), '--json']);
    const result = parseJson<Outcome & Partial<Paused>>(run, `approve ${runId}`);
    if (run.code !== 4 || round > 5) return { run, result, rounds: round };
  }
}

/** Kills (SIGKILL) a started CLI at an event of the test's (a held model call, a marker line); fails when the process
 * ends before it. */
export async function killedAt(started: StartedCli, event: Promise<void>, what: string): Promise<CliRun> {
  await Promise.race([
    event,
    started.done.then((run) =>
      Promise.reject(new Error(`${what}: the process ended before it could be killed: ${run.stdout}${run.stderr}`)),
    ),
  ]);
  started.child.kill('SIGKILL');
  const killed = await started.done;
  if (killed.signal !== 'SIGKILL') throw new Error(`${what}: not killed: ${killed.stderr}`);
  return killed;
}
