// `stageloop resume RUN` and `stageloop replay RUN`: continue a recorded run, or run it again from its recording.
import type { RunStore, RunSummary } from '../../src/store/types.js';
import { RunFinishedError, runNotFound } from '../../src/store/types.js';
import type { SessionStore } from '../../src/sessions/types.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { parseFlags } from './args.js';
import type { CommandIo, CommandModule } from './command.js';
import { openRunStore, type OpenedStore } from '../store.js';
import type { CalculatorWorkerHost } from '../../src/tools/calculator-host.js';
import { recipeOf } from '../recipe.js';
import { attendedRun, type ShowFlags } from './run-command.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';

export const resumeUsage = `Usage: stageloop resume RUN [--force] [--json] [--quiet] [--verbose] [--store PATH]
Continues a run whose process died, or that was cancelled or failed, from its last checkpoint: every model and tool
call the recording holds is served from it, not made again (only a call in flight when the process died runs twice).
The pipeline and model settings are the recorded ones; the model's key comes from the environment as for "run".
  --force   resume although the pipeline's shape changed since, or another process holds the run`;

export const replayUsage = `Usage: stageloop replay RUN [--pipeline NAME] [--json] [--store PATH]
Runs a recorded run again offline, serving every model and tool call from the recording, and prints "identical" or
the first stage where it went another way. With --pipeline, replays it on another pipeline: does it still do the same?
Exit codes: 0 identical, 1 diverged, 2 usage error.`;

function runIdOf(command: string, positionals: readonly string[]): string {
  const [runId, extra] = positionals;
  if (runId === undefined)
    throw new StageloopError('usage', `stageloop ${command} needs a run id: list them with "stageloop runs"`);
  if (extra !== undefined)
    throw new StageloopError('usage', `stageloop ${command} takes one run id, got also "${extra}"`);
  return runId;
}

function recordedModelName(run: RunSummary): string | undefined {
  const model = (run.options as { model?: { name?: unknown } }).model;
  return typeof model?.name === 'string' ? model.name : undefined;
}

async function mustGet(store: RunStore, runId: string): Promise<RunSummary> {
  const run = await store.get(runId);
  if (run === undefined) throw runNotFound(runId);
  return run;
}

export const resume: CommandModule = { usage: () => resumeUsage, run: resumeCommand };
export const replay: CommandModule = { usage: () => replayUsage, run: replayCommand };

export async function resumeCommand(argv: readonly string[], io: CommandIo): Promise<number | 'help'> {
  const options = {
    force: { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
    verbose: { type: 'boolean' },
    json: { type: 'boolean' },
    store: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values, positionals } = parseFlags('resume', argv, options);
  if (values.help) return 'help';
  const runId = runIdOf('resume', positionals);
  const store = await openRunStore(values.store, io.env);
  const { CalculatorWorkerHost, defaultCalculatorLimits } = await import('../../src/tools/calculator-host.js');
  const calculatorHost = new CalculatorWorkerHost(defaultCalculatorLimits);
  try {
    return await resumeOpened(runId, values, io, store, calculatorHost);
  } finally {
    await calculatorHost.close();
    await store.store.close().catch(() => undefined);
  }
}

async function resumeOpened(
  runId: string,
  values: { force?: boolean; quiet?: boolean; verbose?: boolean; json?: boolean },
  io: CommandIo,
  store: OpenedStore,
  calculatorHost: CalculatorWorkerHost,
): Promise<number> {
  const run = await mustGet(store.store, runId);
  if (run.status === 'completed' || run.status === 'stopped') throw new RunFinishedError(runId, run.status);
  const recipe = recipeOf(run);
  const { assemble } = await import('../assemble.js');
  const assembled = await assemble(recipe, io.env, { calculatorHost, sessionFile: store.location });
  const flags: ShowFlags = {
    json: values.json ?? false,
    quiet: values.quiet ?? false,
    verbose: values.verbose ?? false,
    traceContent: recipe.tracing.content,
    ...(recipe.tracing.exporter && { trace: recipe.tracing.exporter }),
  };
  const force = values.force ?? false;
  const { resumeRun } = await import('../../src/durable/durable-run.js');
  try {
    return await attendedRun(flags, io, { run: assembled, recipe, recording: store }, (deps, signal) =>
      resumeRun(store.store, runId, { pipeline: assembled.pipeline, deps, signal, force, takeOver: force }),
    );
  } finally {
    await assembled.close();
  }
}

export async function replayCommand(argv: readonly string[], io: CommandIo): Promise<number | 'help'> {
  const options = {
    pipeline: { type: 'string', short: 'p' },
    json: { type: 'boolean' },
    store: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values, positionals } = parseFlags('replay', argv, options);
  if (values.help) return 'help';
  const runId = runIdOf('replay', positionals);
  const { store, location: file } = await openRunStore(values.store, io.env);
  const streams = io;
  try {
    const run = await mustGet(store, runId);
    // A recording that stops mid-run has nothing to compare the end with: the run must end first.
    if (run.status === 'running')
      throw new StageloopError(
        'conflict',
        `run ${runId} has not finished (it is running, or its process died): continue it with "stageloop resume ${runId}", then replay it`,
      );
    const recorded = recipeOf(run);
    const recipe = typeof values.pipeline === 'string' ? { ...recorded, pipeline: values.pipeline } : recorded;
    const { pipelineOf, recordedTools } = await import('../assemble.js');
    const pipeline = pipelineOf(recipe, recipe.model.name ?? recordedModelName(run), recordedTools(run.options));
    const deps = recipe.session === undefined ? {} : { sessions: await replaySessionsOf(run, file) };
    const { replayRun } = await import('../../src/durable/replay.js');
    let report;
    try {
      report = await replayRun(store, runId, { pipeline, deps });
    } finally {
      deps.sessions?.close();
    }
    if (values.json) {
      const { result, ...rest } = report;
      const { state: _state, ...summary } = result;
      streams.stdout.write(`${terminalSafeJson({ ...rest, result: { ...summary, error: summary.error?.message } })}\n`);
    } else if (report.identical) {
      streams.stdout.write(
        `identical: ${pipeline.name} on run ${runId} ends ${report.replayed.status} with the same state (hash ${report.replayed.stateHash.slice(0, 12)}) and answer\n`,
      );
    } else {
      const divergence = report.divergence;
      const where = divergence
        ? `${divergence.zone}${divergence.zone === 'iteration' ? ` ${divergence.iteration}` : ''}, stage ${divergence.stage ?? '(start of finalize)'}`
        : 'the end';
      const what = divergence
        ? `${divergence.what.replace('_', ' ')}: ${divergence.message}`
        : `the run ended ${report.replayed.status} where the recording ended ${report.recorded.status}`;
      streams.stdout.write(`${terminalSafe(`diverged at ${where}: ${what}`)}\n`);
    }
    return report.identical ? 0 : 1;
  } finally {
    await store.close().catch(() => undefined);
  }
}

/** The session of a replayed turn as it was when the run started, read from the runs' store. */
async function replaySessionsOf(run: RunSummary, file: string): Promise<SessionStore> {
  const [{ openSessionStore }, { replaySessions }] = await Promise.all([
    import('../../src/sessions/open-sessions.js'),
    import('../replay-sessions.js'),
  ]);
  const live = await openSessionStore({ path: file });
  const view = replaySessions(live, run);
  return { ...view, close: () => live.close() };
}
