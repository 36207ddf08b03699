// `stageloop approve RUN [ID...]`, `stageloop reject RUN ID --message "..."`, `stageloop resume RUN`: continue a run
// that paused for approval, in this (new) process, with the same pipeline, model and tools it was started with.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DecisionError, parseDecision, type Decision } from '../durable/decisions.js';
import { resumeRun } from '../durable/durable-run.js';
import type { Deps } from '../engine/stage.js';
import type { Environment } from '../model/config.js';
import { RunNotFoundError } from '../store/types.js';
import { CalculatorWorkerHost, defaultCalculatorLimits } from '../tools/calculator-host.js';
import { parse, UsageError } from './args.js';
import { attachDeciders, pausedNotice, withApprovals } from './approvals.js';
import { buildPipeline, chooseModel, defaultTools } from './assemble.js';
import { exitCodeOf } from './output.js';
import { progressPrinter } from './progress.js';
import { openCliStore } from './store-location.js';
import { printResult, type CliRunSettings, type CliStreams, type ShowFlags } from './run-command.js';

export type DecideCommand = 'approve' | 'reject';

export const decideUsage = `Usage:
  stageloop approve RUN [ID...] [--arguments JSON]   approve the pending calls (all of them when no ID is given);
                                                     --arguments runs the one ID with these arguments instead
  stageloop reject RUN ID --message "..."            reject a call; the model reads the message
  stageloop approve RUN --decisions FILE             the decisions of a JSON file like {"call_1": {"approve": true}}
  stageloop resume RUN                               continue, asking at the terminal (without one it pauses again)
Options: --store PATH, --json, --quiet, --verbose`;

const options = {
  arguments: { type: 'string' },
  message: { type: 'string' },
  decisions: { type: 'string' },
  store: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function decideCommand(command: DecideCommand, argv: string[], env: Environment, streams: CliStreams): Promise<number> {
  const { values, positionals } = parse(`${command}`, () => parseArgs({ args: argv, options, allowPositionals: true, strict: true }));
  if (values.help) {
    streams.stdout.write(`${decideUsage}\n`);
    return 0;
  }
  const [runId, ...ids] = positionals;
  if (runId === undefined) throw new UsageError(`stageloop ${command} needs a run id: see "stageloop runs"`);
  const { store } = await openCliStore(values.store, env);
  const calculatorHost = new CalculatorWorkerHost(defaultCalculatorLimits);
  try {
    const run = await store.get(runId);
    if (run === undefined) throw new RunNotFoundError(runId);
    const settings = (run.options as { cli?: CliRunSettings }).cli;
    if (settings === undefined) throw new UsageError(`run ${runId} was not started by "stageloop run", so the CLI cannot rebuild it: resume it with resumeRun() in code`);
    const pending = ((run.outcome?.result.pending ?? []) as Array<{ id: string }>).map((item) => item.id);
    const decisions = decisionsFor(command, ids, pending, values);
    const flags = { ...settings.guards, pipeline: settings.pipeline, offline: settings.offline, ...(settings.model ? { model: settings.model } : {}), ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}) };
    const choice = await chooseModel(flags, env);
    const tools = await defaultTools(env, calculatorHost);
    const pipeline = withApprovals(buildPipeline(settings.pipeline, settings.guards, choice.model.modelName), settings, tools);
    const deps: Partial<Deps> = { model: choice.model, tools };
    if (!values.json && !values.quiet) deps.onEvent = progressPrinter(streams.stderr, { color: false });
    if (decisions === undefined) attachDeciders(deps, settings, { input: process.stdin, output: streams.stderr });
    const result = await resumeRun(store, runId, { pipeline, deps, ...(decisions === undefined ? {} : { decisions }) });
    const shown: ShowFlags = { json: values.json ?? false, quiet: values.quiet ?? false, verbose: values.verbose ?? false, traceContent: false };
    printResult(result, shown, streams, 0);
    if (result.status === 'interrupted') streams.stderr.write(`${pausedNotice(result)}\n`);
    return exitCodeOf(result.status);
  } finally {
    await Promise.all([store.close(), calculatorHost.close()]);
  }
}

/** The decisions a command line gives, checked here for its shape; resumeRun checks them against the run. */
function decisionsFor(command: DecideCommand, ids: string[], pending: string[], values: { arguments?: string; message?: string; decisions?: string }): Record<string, Decision> | undefined {
  if (new Set(ids).size !== ids.length) throw new DecisionError(`a call id is given twice: each call takes one decision`);
  if (values.decisions !== undefined) {
    if (ids.length > 0) throw new UsageError('--decisions FILE decides the calls itself: give only the run id');
    return decisionFile(values.decisions);
  }
  if (command === 'reject') {
    if (ids.length !== 1) throw new UsageError('stageloop reject takes the run id and one call id: stageloop reject RUN ID --message "why"');
    return { [ids[0]!]: values.message === undefined ? { approve: false } : { approve: false, message: values.message } };
  }
  if (values.message !== undefined) throw new UsageError('--message goes with stageloop reject; approve takes --arguments to edit a call');
  if (values.arguments !== undefined) {
    if (ids.length !== 1) throw new UsageError('--arguments edits one call: stageloop approve RUN ID --arguments \'{"expression":"2+2"}\'');
    try {
      JSON.parse(values.arguments);
    } catch {
      throw new DecisionError(`--arguments must be JSON like '{"expression":"2+2"}', got ${values.arguments}`);
    }
    return { [ids[0]!]: { approve: true, arguments: values.arguments } };
  }
  return Object.fromEntries((ids.length > 0 ? ids : pending).map((id) => [id, { approve: true }]));
}

function decisionFile(path: string): Record<string, Decision> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new DecisionError(`the decision file ${path} cannot be read as JSON (${(error as Error).message.split('\n')[0]}): write {"CALL_ID": {"approve": true}}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new DecisionError(`the decision file ${path} must hold an object keyed by call id, like {"call_1": {"approve": true}}`);
  return Object.fromEntries(Object.entries(parsed).map(([id, value]) => [id, parseDecision(id, value)]));
}
