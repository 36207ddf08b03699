// `stageloop resume RUN` and `stageloop replay RUN`: continue a recorded run, or run it again from its recording.
import { parseArgs } from 'node:util';
import type { Environment } from '../../src/model/config.js';
import type { RunStore, RunSummary } from '../../src/store/types.js';
import { RunFinishedError, RunNotFoundError } from '../../src/store/types.js';
import type { CalculatorWorkerHost } from '../../src/tools/calculator-host.js';
import type { SessionStore } from '../../src/sessions/types.js';
import { parse, UsageError } from './args.js';
import type { OpenedStore } from './store-location.js';
import { recipeOf } from '../recipe.js';
import { attendedRun, type CliStreams, type ShowFlags } from './run-command.js';
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

function runIdOf(command: string, positionals: string[]): string {
  const [runId, extra] = positionals;
  if (runId === undefined) throw new UsageError(`stageloop ${command} needs a run id: list them with "stageloop runs"`);
  if (extra !== undefined) throw new UsageError(`stageloop ${command} takes one run id, got also "${extra}"`);
  return runId;
}

function recordedModelName(run: RunSummary): string | undefined {
  const model = (run.options as { model?: { name?: unknown } }).model;
  return typeof model?.name === 'string' ? model.name : undefined;
}

async function mustGet(store: RunStore, runId: string): Promise<RunSummary> {
  const run = await store.get(runId);
  if (run === undefined) throw new RunNotFoundError(runId);
  return run;
}

export async function resumeCommand(argv: string[], env: Environment, streams: CliStreams, store: OpenedStore, calculatorHost: CalculatorWorkerHost): Promise<number> {
  const options = { force: { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' }, verbose: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const { values, positionals } = parse('resume', () => parseArgs({ args: argv, options, allowPositionals: true, strict: true }));
  if (values.help) {
    streams.stdout.write(`${resumeUsage}\n`);
    return 0;
  }
  const runId = runIdOf('resume', positionals);
  const run = await mustGet(store.store, runId);
  if (run.status === 'completed' || run.status === 'stopped') throw new RunFinishedError(runId, run.status);
  const recipe = recipeOf(run);
  const { assemble } = await import('../assemble.js');
  const assembled = await assemble(recipe, env, { calculatorHost, sessionFile: store.location });
  const flags: ShowFlags = { json: values.json ?? false, quiet: values.quiet ?? false, verbose: values.verbose ?? false, traceContent: recipe.tracing.content, ...(recipe.tracing.exporter && { trace: recipe.tracing.exporter }) };
  const force = values.force ?? false;
  const { resumeRun } = await import('../../src/durable/durable-run.js');
  try {
    return await attendedRun(flags, env, streams, { run: assembled, recipe, recording: store }, (deps, signal) => resumeRun(store.store, runId, { pipeline: assembled.pipeline, deps, signal, force, takeOver: force }));
  } finally {
    await assembled.close();
  }
}

export async function replayCommand(argv: string[], streams: CliStreams, store: RunStore, file = ''): Promise<number> {
  const options = { pipeline: { type: 'string', short: 'p' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const { values, positionals } = parse('replay', () => parseArgs({ args: argv, options, allowPositionals: true, strict: true }));
  if (values.help) {
    streams.stdout.write(`${replayUsage}\n`);
    return 0;
  }
  const runId = runIdOf('replay', positionals);
  try {
    const run = await mustGet(store, runId);
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
      streams.stdout.write(`identical: ${pipeline.name} on run ${runId} ends ${report.replayed.status} with the same state (hash ${report.replayed.stateHash.slice(0, 12)}) and answer\n`);
    } else {
      const divergence = report.divergence;
      const where = divergence ? `${divergence.zone}${divergence.zone === 'iteration' ? ` ${divergence.iteration}` : ''}, stage ${divergence.stage ?? '(start of finalize)'}` : 'the end';
      const what = divergence ? `${divergence.what.replace('_', ' ')}: ${divergence.message}` : `the run ended ${report.replayed.status} where the recording ended ${report.recorded.status}`;
      streams.stdout.write(`${terminalSafe(`diverged at ${where}: ${what}`)}\n`);
    }
    return report.identical ? 0 : 1;
  } finally {
    await store.close().catch(() => undefined);
  }
}

/** The session of a replayed turn as it was when the run started, read from the runs' store. */
async function replaySessionsOf(run: RunSummary, file: string): Promise<SessionStore> {
  const [{ openSessionStore }, { replaySessions }] = await Promise.all([import('../../src/sessions/open-sessions.js'), import('../replay-sessions.js')]);
  const live = await openSessionStore({ path: file });
  const view = replaySessions(live, run);
  return { ...view, close: () => live.close() };
}
