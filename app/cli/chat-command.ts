// `stageloop chat [--session NAME]`: an interactive session in the terminal. Each line is a turn (a recorded run
// of the session); Ctrl-C cancels the turn in flight only; Ctrl-D or /exit leaves; /facts, /history, /new.
import { createInterface } from 'node:readline';
import type { RunResult } from '../../src/engine/runner.js';
import type { Deps } from '../../src/engine/stage.js';
import { sessionScope, type SessionScope } from '../../src/sessions/types.js';
import { parseChatFlags } from './args.js';
import { assemble, type AssembledRun } from '../assemble.js';
import { recordOf } from '../recipe.js';
import type { Pipeline } from '../../src/engine/pipeline.js';
import { progressPrinter } from './progress.js';
import { recipeFromFlags } from './recipe-flags.js';
import type { CliStreams, CommandIo, CommandModule } from './command.js';
import { openRunStore } from '../store.js';
import type { JsonObject } from '../../src/common/json.js';
import type { RunStore } from '../../src/store/types.js';
import { openSession, sessionWarnings, type OpenedSession } from './session-setup.js';
import { terminalSafe } from './terminal-text.js';
import { flagOf } from './guard-flags.js';

const help =
  'Type a task and press Enter. /facts, /history, /new (a fresh session), /exit or Ctrl-D to leave; Ctrl-C cancels the turn in flight.';

const freshName = () => `chat-${Date.now().toString(36)}`;

export const chatUsage = `Usage: stageloop chat [--session NAME] [--user ID] [model and limit flags of "stageloop run"]\n${help}`;

export const chat: CommandModule = { usage: () => chatUsage, run: chatCommand };

export async function chatCommand(argv: readonly string[], io: CommandIo): Promise<number | 'help'> {
  const flags = parseChatFlags(argv);
  if (flags === 'help') return 'help';
  const { env, stdin: input, ...streams } = io;
  const given = await recipeFromFlags({ ...flags, session: flags.session ?? freshName() }, env, io.cwd);
  const opened = await openSession(
    { session: given.recipe.session!.name, user: given.recipe.session!.user },
    env,
    flags.store,
  );
  const recording = flags.noStore
    ? undefined
    : await openRunStore(flags.store, env, {
        optional: true,
        unrecorded: (line: string) => streams.stderr.write(`${line}\n`),
      });
  const { CalculatorWorkerHost, defaultCalculatorLimits } = await import('../../src/tools/calculator-host.js');
  const calculatorHost = new CalculatorWorkerHost(defaultCalculatorLimits);
  let assembled: AssembledRun | undefined;
  try {
    assembled = await assemble(given.recipe, given.env, {
      calculatorHost,
      sessions: opened.sessions,
      settingName: flagOf,
    });
    const color = 'isTTY' in streams.stderr && streams.stderr.isTTY === true && env.NO_COLOR === undefined;
    const deps: Partial<Deps> = {
      ...assembled.deps,
      onEvent: sessionWarnings(streams.stderr, progressPrinter(streams.stderr, { color })),
    };
    streams.stderr.write(`${terminalSafe(assembled.notice)}\n${help}\n`);
    // Each turn records the recipe with the session it belongs to (/new starts another).
    const record = {
      store: recording?.store,
      recordFor: (scope: SessionScope) =>
        recordOf({ ...given.recipe, session: { name: scope.session, user: scope.user } }),
    };
    return await converse(opened, deps, assembled.pipeline, streams, input, record);
  } finally {
    await assembled?.close();
    opened.close();
    await recording?.store.close().catch(() => undefined);
    await calculatorHost.close();
  }
}

interface Recording {
  store: RunStore | undefined;
  recordFor(scope: SessionScope): JsonObject;
}

async function converse(
  opened: OpenedSession,
  deps: Partial<Deps>,
  pipeline: Pipeline,
  streams: CliStreams,
  input: NodeJS.ReadableStream,
  recording: Recording,
): Promise<number> {
  const { runPipeline } = await import('../../src/durable/durable-run.js');
  const terminal = 'isTTY' in input && input.isTTY === true;
  const lines = createInterface({ input, output: streams.stdout, terminal });
  let scope: SessionScope = opened.scope;
  let turn: AbortController | undefined;
  const prompt = () => {
    lines.setPrompt(`${scope.session}> `);
    lines.prompt();
  };
  const onInterrupt = () => {
    if (turn !== undefined) {
      streams.stderr.write('\ncancelling this turn (the session is kept)\n');
      turn.abort(new Error('cancelled with Ctrl-C'));
      return;
    }
    streams.stdout.write('\n(Ctrl-D or /exit leaves)\n');
    prompt();
  };
  lines.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);
  try {
    prompt();
    for await (const line of lines) {
      const task = line.trim();
      if (task === '/exit') break;
      if (task === '/new') {
        scope = sessionScope(freshName(), scope.user);
        streams.stdout.write(`new session ${scope.session}\n`);
      } else if (task === '/facts') {
        const facts = await opened.sessions.listFacts(scope);
        streams.stdout.write(
          facts.length === 0
            ? '(no facts)\n'
            : facts.map((fact) => `${terminalSafe(fact.key)}: ${terminalSafe(fact.value)}\n`).join(''),
        );
      } else if (task === '/history') {
        const history = await opened.sessions.load(scope);
        const text = [
          history.summary && `summary: ${history.summary}`,
          ...history.turns.map(
            (entry) =>
              `${entry.seq}. ${entry.task} → ${entry.answer}${entry.status === undefined ? '' : ` (${entry.status})`}`,
          ),
        ].filter(Boolean);
        streams.stdout.write(text.length === 0 ? '(no turns yet)\n' : `${terminalSafe(text.join('\n'))}\n`);
      } else if (task.startsWith('/')) {
        streams.stdout.write(`unknown command ${terminalSafe(task)}: ${help}\n`);
      } else if (task !== '') {
        turn = new AbortController();
        let result: RunResult;
        try {
          result = await runPipeline(
            pipeline,
            { task, session: scope.session, user: scope.user },
            {
              deps,
              signal: turn.signal,
              ...(recording.store ? { store: recording.store, record: recording.recordFor(scope) } : {}),
            },
          );
        } finally {
          turn = undefined;
        }
        if (result.status === 'cancelled')
          streams.stderr.write(`turn cancelled (run ${result.runId}); ask again or go on\n`);
        else if (result.answer !== null) streams.stdout.write(`${terminalSafe(result.answer)}\n`);
        if (result.error) streams.stderr.write(`stageloop: ${terminalSafe(result.error.message)}\n`);
      }
      prompt();
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    lines.close();
  }
  streams.stdout.write('\n');
  return 0;
}
