// `stageloop resume RUN` and `stageloop replay RUN`: continue a recorded run, or run it again from its recording.
import { parseArgs } from 'node:util';
import type { JsonObject } from '../common/json.js';
import type { Environment } from '../model/config.js';
import type { RunStore, RunSummary } from '../store/types.js';
import { RunFinishedError, RunNotFoundError } from '../store/types.js';
import type { CalculatorWorkerHost } from '../tools/calculator-host.js';
import { parse, UsageError, type GuardFlags } from './args.js';
import type { ZodType } from 'zod';
import { buildPipeline, chooseModel, defaultTools, schemaOfJson } from './assemble.js';
import { asksPerson, attendedRun, type CliRunSettings, type CliStreams, type ShowFlags } from './run-command.js';
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

/** The recorded CLI settings, or the pipeline alone for a run recorded from code. */
/** Pipeline options the recorded settings carry: the output schema a run was made to match. */
function recordedOptions(settings: CliRunSettings): { outputSchema?: ZodType } {
  return settings.outputSchema === undefined ? {} : { outputSchema: schemaOfJson(settings.outputSchema, 'the recorded output schema') };
}

export function settingsOf(run: RunSummary): CliRunSettings {
  const cli = (run.options as { cli?: JsonObject }).cli as unknown as CliRunSettings | undefined;
  if (cli === undefined) return { pipeline: run.pipeline, guards: { noGuards: true }, offline: false };
  // Recorded before the default guards: rebuilt as it ran, without them.
  return cli.guardDefaults === true ? cli : { ...cli, guards: { ...cli.guards, noGuards: true } };
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

export async function resumeCommand(argv: string[], env: Environment, streams: CliStreams, store: { store: RunStore; file: string }, calculatorHost: CalculatorWorkerHost): Promise<number> {
  const options = { force: { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' }, verbose: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const { values, positionals } = parse('resume', () => parseArgs({ args: argv, options, allowPositionals: true, strict: true }));
  if (values.help) {
    streams.stdout.write(`${resumeUsage}\n`);
    return 0;
  }
  const runId = runIdOf('resume', positionals);
  const run = await mustGet(store.store, runId);
  if (run.status === 'completed' || run.status === 'stopped') throw new RunFinishedError(runId, run.status);
  const settings = settingsOf(run);
  const choice = await chooseModel({ offline: settings.offline, ...(settings.model !== undefined && { model: settings.model }), ...(settings.baseUrl !== undefined && { baseUrl: settings.baseUrl }) }, env);
  const built = buildPipeline(settings.pipeline, settings.guards as GuardFlags, choice.model.modelName, recordedOptions(settings));
  const tools = await defaultTools(env, calculatorHost);
  const pipeline = asksPerson(settings) ? (await import('./approvals.js')).withApprovals(built, settings, tools) : built;
  const flags: ShowFlags = { json: values.json ?? false, quiet: values.quiet ?? false, verbose: values.verbose ?? false, traceContent: false };
  const force = values.force ?? false;
  const { resumeRun } = await import('../durable/durable-run.js');
  return attendedRun(flags, env, streams, { choice, tools, recording: store, settings }, (deps, signal) => resumeRun(store.store, runId, { pipeline, deps, signal, force, takeOver: force }));
}

export async function replayCommand(argv: string[], streams: CliStreams, store: RunStore): Promise<number> {
  const options = { pipeline: { type: 'string', short: 'p' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const { values, positionals } = parse('replay', () => parseArgs({ args: argv, options, allowPositionals: true, strict: true }));
  if (values.help) {
    streams.stdout.write(`${replayUsage}\n`);
    return 0;
  }
  const runId = runIdOf('replay', positionals);
  try {
    const run = await mustGet(store, runId);
    const settings = settingsOf(run);
    const built = buildPipeline(typeof values.pipeline === 'string' ? values.pipeline : settings.pipeline, settings.guards as GuardFlags, settings.model ?? recordedModelName(run));
    const pipeline = settings.approveTools !== undefined ? (await import('../../stages/approval.js')).withApproval(built, { tools: settings.approveTools }) : built;
    const { replayRun } = await import('../durable/replay.js');
    const report = await replayRun(store, runId, { pipeline });
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
