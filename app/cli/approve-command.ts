// `stageloop approve RUN [ID...]`, `stageloop reject RUN ID --message "..."`, `stageloop resume RUN`: continue a run
// that paused for approval, in this (new) process, with the same pipeline, model and tools it was started with.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseDecision, type Decision } from '../../src/durable/decisions.js';
import { resumeRun } from '../../src/durable/durable-run.js';
import type { Deps } from '../../src/engine/stage.js';
import { runNotFound } from '../../src/store/types.js';
import { CalculatorWorkerHost, defaultCalculatorLimits } from '../../src/tools/calculator-host.js';
import { parseFlags } from './args.js';
import type { PendingDecision } from '../../src/engine/signal.js';
import { CANCEL_MESSAGE } from '../../src/tools/mcp/elicitation.js';
import type { CommandIo, CommandModule } from './command.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { assemble } from '../assemble.js';
import { recordedRecipe } from '../recipe.js';
import { attachDeciders, pausedNotice } from './approvals.js';
import { sessionWarnings } from './session-setup.js';
import { exitCodeOf } from './output.js';
import { progressPrinter } from './progress.js';
import { openRunStore } from '../store.js';
import { printResult, type ShowFlags } from './run-command.js';
import { startCliTracing, type CliTracing } from './tracing.js';

export type DecideCommand = 'approve' | 'reject';

export const decideUsage = `Usage:
  stageloop approve RUN [ID...] [--arguments JSON]   approve the pending calls (all of them when no ID is given);
                                                     --arguments runs the one ID with these arguments instead
  stageloop reject RUN ID --message "..."            reject a call; the model reads the message
  stageloop approve RUN ID --answer JSON             answer an MCP server's question (kind elicitation) with its form
                                                     filled in, like --answer '{"name":"Ada"}'; reject declines it,
                                                     reject --cancel cancels it
  stageloop approve RUN --decisions FILE             the decisions of a JSON file like {"call_1": {"approve": true}}
  stageloop resume RUN                               continue, asking at the terminal (without one it pauses again)
Options: --store PATH, --json, --quiet, --verbose`;

const options = {
  arguments: { type: 'string' },
  answer: { type: 'string' },
  cancel: { type: 'boolean' },
  message: { type: 'string' },
  decisions: { type: 'string' },
  store: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const approve: CommandModule = {
  usage: () => decideUsage,
  run: (argv, io) => decideCommand('approve', argv, io),
};
export const reject: CommandModule = { usage: () => decideUsage, run: (argv, io) => decideCommand('reject', argv, io) };

export async function decideCommand(
  command: DecideCommand,
  argv: readonly string[],
  io: CommandIo,
): Promise<number | 'help'> {
  const { values, positionals } = parseFlags(command, argv, options);
  if (values.help) return 'help';
  const { env, stdin, ...streams } = io;
  const [runId, ...ids] = positionals;
  if (runId === undefined)
    throw new StageloopError('usage', `stageloop ${command} needs a run id: see "stageloop runs"`);
  const { store } = await openRunStore(values.store, env);
  const calculatorHost = new CalculatorWorkerHost(defaultCalculatorLimits);
  let closeAssembled = async () => {};
  let tracing: CliTracing | undefined;
  try {
    const run = await store.get(runId);
    if (run === undefined) throw runNotFound(runId);
    const recipe = recordedRecipe(run);
    if (recipe === undefined)
      throw new StageloopError(
        'conflict',
        `run ${runId} was not started by stageloop's CLI, server or workers, so it has no recipe to rebuild it from: resume it with resumeRun() in code`,
      );
    const waiting = (run.outcome?.result.pending ?? []) as PendingDecision[];
    const pending = waiting.map((item) => item.id);
    const decisions = decisionsFor(command, ids, pending, answerFlags(command, values));
    // An answer to an MCP server's question must fill its form: one line naming the fields, before anything starts.
    if (decisions !== undefined && waiting.some((item) => item.kind === 'elicitation'))
      await (await import('../../src/tools/mcp/elicitation.js')).checkElicitationAnswers(waiting, decisions);
    const assembled = await assemble(recipe, env, {
      calculatorHost,
      ...(values.store !== undefined && { sessionFile: values.store }),
    });
    const { pipeline } = assembled;
    // The recorded tracing, as resume applies it: a traced run stays traced across its pause.
    if (recipe.tracing.exporter !== undefined)
      tracing = await startCliTracing(recipe.tracing.exporter, {
        traceContentFlag: recipe.tracing.content,
        env,
        stderr: streams.stderr,
      });
    const deps: Partial<Deps> = tracing
      ? { ...assembled.deps, ...tracing.instrument({ model: assembled.deps.model, tools: assembled.deps.tools }) }
      : { ...assembled.deps };
    if (!values.json && !values.quiet) deps.onEvent = progressPrinter(streams.stderr, { color: false });
    if (deps.sessions !== undefined) deps.onEvent = sessionWarnings(streams.stderr, deps.onEvent);
    if (decisions === undefined) attachDeciders(deps, recipe, { input: stdin, output: streams.stderr });
    closeAssembled = () => assembled.close();
    const started = performance.now();
    const result = await resumeRun(store, runId, { pipeline, deps, ...(decisions === undefined ? {} : { decisions }) });
    const shown: ShowFlags = {
      json: values.json ?? false,
      quiet: values.quiet ?? false,
      verbose: values.verbose ?? false,
      traceContent: false,
    };
    printResult(result, shown, streams, performance.now() - started);
    if (result.status === 'interrupted') streams.stderr.write(`${pausedNotice(result)}\n`);
    return exitCodeOf(result.status);
  } finally {
    await tracing?.finish();
    await closeAssembled();
    await Promise.all([store.close(), calculatorHost.close()]);
  }
}

/** --answer is an approval's arguments (the form's content); --cancel a rejection whose message cancels the form. */
function answerFlags(
  command: DecideCommand,
  values: { arguments?: string; answer?: string; cancel?: boolean; message?: string; decisions?: string },
): { arguments?: string; message?: string; decisions?: string } {
  const { answer, cancel, ...rest } = values;
  if (answer !== undefined && (command === 'reject' || rest.arguments !== undefined))
    throw new StageloopError('usage', '--answer goes with stageloop approve, instead of --arguments');
  if (cancel === true && (command === 'approve' || rest.message !== undefined))
    throw new StageloopError('usage', '--cancel goes with stageloop reject, without --message');
  if (answer !== undefined) return { ...rest, arguments: answer };
  return cancel === true ? { ...rest, message: CANCEL_MESSAGE } : rest;
}

/** The decisions a command line gives, checked here for its shape; resumeRun checks them against the run. */
function decisionsFor(
  command: DecideCommand,
  ids: string[],
  pending: string[],
  values: { arguments?: string; message?: string; decisions?: string },
): Record<string, Decision> | undefined {
  if (new Set(ids).size !== ids.length)
    throw new StageloopError('invalid_decision', `a call id is given twice: each call takes one decision`);
  if (values.decisions !== undefined) {
    if (ids.length > 0)
      throw new StageloopError('usage', '--decisions FILE decides the calls itself: give only the run id');
    return decisionFile(values.decisions);
  }
  if (command === 'reject') {
    if (ids.length !== 1)
      throw new StageloopError(
        'usage',
        'stageloop reject takes the run id and one call id: stageloop reject RUN ID --message "why"',
      );
    return {
      [ids[0]!]: values.message === undefined ? { approve: false } : { approve: false, message: values.message },
    };
  }
  if (values.message !== undefined)
    throw new StageloopError('usage', '--message goes with stageloop reject; approve takes --arguments to edit a call');
  if (values.arguments !== undefined) {
    if (ids.length !== 1)
      throw new StageloopError(
        'usage',
        '--arguments edits one call: stageloop approve RUN ID --arguments \'{"expression":"2+2"}\'',
      );
    try {
      JSON.parse(values.arguments);
    } catch {
      throw new StageloopError(
        'invalid_decision',
        `--arguments must be JSON like '{"expression":"2+2"}', got ${values.arguments}`,
      );
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
    throw new StageloopError(
      'invalid_decision',
      `the decision file ${path} cannot be read as JSON (${(error as Error).message.split('\n')[0]}): write {"CALL_ID": {"approve": true}}`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new StageloopError(
      'invalid_decision',
      `the decision file ${path} must hold an object keyed by call id, like {"call_1": {"approve": true}}`,
    );
  return Object.fromEntries(Object.entries(parsed).map(([id, value]) => [id, parseDecision(id, value)]));
}
