// The stageloop command line. The CLI is the one place in src/ that assembles stages and pipelines.
// Only flag parsing loads up front: the engine, stages and tools load when a command needs them (--help stays instant).
import { parsePipelinesFlags, parseRunFlags, UsageError } from './args.js';
import { environmentHelp } from './environment.js';
import type { CliStreams } from './run-command.js';
import { terminalSafe, errorLine } from './terminal-text.js';
import { messageOf } from '../../src/common/error-message.js';
import { codeOf, exitCodeOf } from '../../src/common/stageloop-error.js';
import { packageVersion } from '../../src/common/version.js';

const usage = `Usage: stageloop <command> [options]

Commands:
  run [options] "TASK"   run an agent on a task (recorded in ./.stageloop/stageloop.db unless --no-store)
  runs [--json]          list the recorded runs, newest first
  show RUN [--json]      a recorded run's timeline: stages, model and tool calls, how it ended
  resume RUN             continue a run whose process died (or that was cancelled) from its last checkpoint
  replay RUN             run a recorded run again offline; prints "identical" or where it first differs
  serve [--port 8787]    the HTTP API and the web console over the recorded runs
  mcp                    every pipeline as an MCP tool over stdio (Claude Desktop, Cursor, VS Code)
  pipelines [--json]     list the built-in pipelines with their three zones and stages
  worker --redis URL     take queued runs from BullMQ on Redis ([--concurrency N] [--queue NAME])
  submit --redis URL "TASK"
                         queue a run, print its id and follow it (run options, --detach, --id ID)
  approve RUN [ID...]    approve the calls a paused run waits for (docs/approvals.md)
  reject RUN ID --message "..."
                         reject one of them; the model reads the message
  tools [--json]         list every tool a run offers (built-in and MCP servers) with where it comes from
  chat [--session NAME]  talk to an agent turn by turn; every turn a recorded run of the session
  eval DATASET [--variant NAME=PIPELINE[:FLAGS]]...
                         run a dataset on pipeline variants, grade every run, compare (docs/eval.md)
  facts [list|set|delete] --session NAME
                         the durable facts of a session

Options:
  -h, --help             show help (also: stageloop run --help)
  -v, --version          print the version

With no OPENAI_API_KEY and no OPENAI_BASE_URL, stageloop uses its built-in offline model.`;

const runUsage = (pipelineNames: string[]) => `Usage: stageloop run [options] "TASK"

Model:
  --pipeline, -p NAME      ${pipelineNames.join(' | ')} (default react)
  --model, -m NAME         model name (default OPENAI_MODEL, or gpt-4o-mini on OpenAI)
  --base-url URL           OpenAI-compatible endpoint (default OPENAI_BASE_URL); works without a key
  --offline                use the built-in offline model even when a key is set
  --max-parallel-steps N   plan-execute-replan: plan steps that may run at once (default 3; 1 = one after another)

Limits and guards (on by default; 0 turns one off, --no-guards all the defaults; docs/guards.md):
  --max-iterations N       iteration budget: at N the model must answer without tools (default: the pipeline's cap,
                           react 10, plan-execute-replan 24)
  --max-tokens N           token budget, input + output of the whole run (default: 80% of the model's context
                           window, 102400 for a model stageloop does not know); 0 for none
  --max-cost USD           cost budget, from the model price table (default: none)
  --timeout SECONDS        time limit; the call in flight is cut off at the deadline (default 600); 0 for none
  --budget-mode soft|hard  soft (default): one forced tool-less answer after a budget is spent; hard: stop before a
                           call whose estimate would cross --max-tokens or --max-cost (docs/guards.md)
  --guard injection[=flag|redact|block]
                           screen the task and tool results for prompt injection (default action: flag)
  --loop-limit N           refuse the Nth identical failing tool call in a row (same tool and arguments; asking
                           again after a refusal stops the run with loop_detected) (default 3); 0 for none
  --context-budget TOKENS  prune old tool observations to keep each request under TOKENS (default: 80% of the
                           model's context window); 0 for none
  --no-guards              none of the defaults above (the iteration cap stays); limits given by flags still apply

Tools and models:
  --mcp-config FILE        MCP servers in the "mcpServers" shape (default: stageloop.config.json in this folder)
  --mcp NAME=COMMAND       one more MCP server for this run (stdio command, or NAME=URL for Streamable HTTP)
  --output-schema FILE     a JSON Schema the final answer must match: the run prints the validated JSON value
                           (stopped with invalid_output when the model cannot make one after a repair)
  --fallback-model NAME    a model on the same server to move to when the model fails (rate limit, 5xx, timeout);
                           repeatable; other servers go in the config file's "fallback" list

Recording:
  --store PATH             record the run in this SQLite file (default $STAGELOOP_HOME/stageloop.db, else
                           ./.stageloop/stageloop.db); the run id is printed at the start
  --no-store               do not record the run

Output:
  --json                   print exactly one JSON object on stdout
  --quiet, -q              print only the answer
  --events                 print every run event as a JSON line on stdout (docs/events.md) instead of the answer
  --verbose                print stack traces for errors
  --trace otlp|console     export spans over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT, default http://localhost:4318),
                           or print the span tree after the run
  --trace-content          record messages and tool arguments in spans (also STAGELOOP_TRACE_CONTENT=true)

Sessions:
  --session NAME           this run is a turn of session NAME: earlier turns, its summary and facts are in context
  --user ID                whose session it is (default "default"); two users' sessions never meet

Approval:
  --approve-tools NAME,... calls to these tools wait for a person: asked at a terminal, else the run pauses (exit 4)
  --approve-all-tools      every tool call waits for a person
  --ask-on-limit           a spent budget asks at a terminal: extend it, finish now, or stop
  --taint-policy P         ask (default) | refuse | off: a write tool call after web or MCP content waits for approval, is refused, or runs

Exit codes: 0 completed, 3 stopped early (limit or guard), 1 failed, 130 cancelled, 2 usage or configuration error,
4 interrupted: waiting for approval (continue with stageloop approve / reject / resume).

Environment (flags win over it):
${environmentHelp()}`;

async function pipelinesCommand(argv: string[], streams: CliStreams): Promise<number> {
  const flags = parsePipelinesFlags(argv);
  if (flags === 'help') {
    streams.stdout.write('Usage: stageloop pipelines [--json] [guard flags of "stageloop run"]\n');
    return 0;
  }
  const [{ zones }, { pipelineOf, pipelineNames }, { makeRecipe }] = await Promise.all([import('../../src/engine/pipeline.js'), import('../assemble.js'), import('../recipe.js')]);
  const { json: _json, ...guards } = flags;
  const listing = pipelineNames.map((name) => {
    const pipeline = pipelineOf(makeRecipe({ pipeline: name, guards }));
    const stages = Object.fromEntries(zones.map((zone) => [zone, pipeline[zone].map((stage) => stage.name)]));
    return { name, maxIterations: pipeline.maxIterations, ...stages } as { name: string; maxIterations: number } & Record<string, string[]>;
  });
  if (flags.json) {
    streams.stdout.write(`${JSON.stringify(listing)}\n`);
    return 0;
  }
  for (const entry of listing) {
    streams.stdout.write(`${entry.name} (at most ${entry.maxIterations} iterations)\n`);
    for (const zone of zones) streams.stdout.write(`  ${zone.padEnd(9)} ${entry[zone]!.length ? entry[zone]!.join(' → ') : '(none)'}\n`);
  }
  return 0;
}

/** Runs the CLI and returns the process exit code. */
export async function main(argv: string[], streams: CliStreams = { stdout: process.stdout, stderr: process.stderr }, env = process.env): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
      streams.stdout.write(`${usage}\n`);
      return 0;
    }
    if (command === '-v' || command === '--version') {
      streams.stdout.write(`${packageVersion()}\n`);
      return 0;
    }
    if (command === 'pipelines') return await pipelinesCommand(rest, streams);
    if (command === 'approve' || command === 'reject') {
      const { decideCommand } = await import('./approve-command.js');
      return await decideCommand(command, rest, env, streams);
    }
    if (command === 'tools') {
      const { parseToolsFlags, toolsCommand, toolsUsage } = await import('./tools-command.js');
      const flags = parseToolsFlags(rest);
      if (flags === 'help') return void streams.stdout.write(`${toolsUsage}\n`), 0;
      const { defaultTools } = await import('../ingredients.js');
      const builtIn = await defaultTools(env);
      return await toolsCommand(flags, { builtIn: builtIn.names.map((name) => builtIn.get(name)!), env, cwd: process.cwd(), streams });
    }
    if (command === 'worker') return await (await import('./worker-command.js')).workerCommand(rest, env, streams);
    if (command === 'submit') return await (await import('./submit-command.js')).submitCommand(rest, streams);
    if (command === 'runs' || command === 'show' || command === 'resume' || command === 'replay') return await storeCommand(command, rest, streams, env);
    if (command === 'facts') return await (await import('./facts-command.js')).factsCommand(rest, env, streams);
    if (command === 'eval') return await (await import('./eval-command.js')).evalCommand(rest, env, streams);
    if (command === 'chat') return await (await import('./chat-command.js')).chatCommand(rest, env, streams);
    if (command === 'serve') return await (await import('./serve-command.js')).serveCommand(rest, env, streams);
    if (command === 'mcp') return await (await import('./mcp-command.js')).mcpCommand(rest, env, streams);
    if (command === 'run') {
      const flags = parseRunFlags(rest);
      if (flags === 'help') {
        const { pipelineNames } = await import('../assemble.js');
        streams.stdout.write(`${runUsage(pipelineNames)}\n`);
        return 0;
      }
      // The calculator's process starts first and loads mathjs while this one loads the engine, stages and model.
      const { CalculatorWorkerHost, defaultCalculatorLimits } = await import('../../src/tools/calculator-host.js');
      const calculatorHost = new CalculatorWorkerHost(defaultCalculatorLimits);
      calculatorHost.warm().catch(() => {}); // a load failure shows on the first calculation
      try {
        const { runCommand } = await import('./run-command.js');
        return await runCommand(flags, env, streams, calculatorHost);
      } finally {
        await calculatorHost.close();
      }
    }
    throw new UsageError(`unknown command "${command}": run "stageloop --help" for the list of commands`);
  } catch (error) {
    // The error's code decides: a mistake the user can fix is one line and exit 2; anything else is ours (exit 1).
    const exitCode = exitCodeOf[codeOf(error)];
    const message = messageOf(error);
    // A message that already names the command ("stageloop show needs a run id") gets no second prefix.
    streams.stderr.write(errorLine(message));
    if (exitCode !== 2 && argv.includes('--verbose') && error instanceof Error && error.stack) streams.stderr.write(`${terminalSafe(error.stack)}\n`);
    return exitCode;
  }
}

/** The commands that read or continue recorded runs; each takes --store PATH. */
async function storeCommand(command: 'runs' | 'show' | 'resume' | 'replay', argv: string[], streams: CliStreams, env: NodeJS.ProcessEnv): Promise<number> {
  const { takeStoreFlag, openCliStore } = await import('./store-location.js');
  const { store: path, rest } = takeStoreFlag(argv);
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  if (command === 'show') {
    const { parseShowFlags, showCommand, showUsage } = await import('./show-command.js');
    const flags = parseShowFlags(rest);
    if (flags === 'help') return void streams.stdout.write(`${showUsage}\n`), 0;
    const { store } = await openCliStore(path, env);
    try {
      const { loadRun } = await import('../../src/durable/inspect.js');
      return await showCommand(await loadRun(store, flags.runId), flags, streams);
    } finally {
      await store.close();
    }
  }
  if (wantsHelp && command !== 'runs') {
    const { resumeUsage, replayUsage } = await import('./resume-command.js');
    streams.stdout.write(`${command === 'resume' ? resumeUsage : replayUsage}\n`);
    return 0;
  }
  const opened = await openCliStore(path, env);
  if (command === 'runs') {
    const { runsCommand } = await import('./runs-command.js');
    try {
      return await runsCommand(rest, streams, opened.store);
    } finally {
      await opened.store.close();
    }
  }
  if (command === 'replay') {
    const { replayCommand } = await import('./resume-command.js');
    return replayCommand(rest, streams, opened.store, opened.location);
  }
  const { CalculatorWorkerHost, defaultCalculatorLimits } = await import('../../src/tools/calculator-host.js');
  const calculatorHost = new CalculatorWorkerHost(defaultCalculatorLimits);
  try {
    const { resumeCommand } = await import('./resume-command.js');
    return await resumeCommand(rest, env, streams, opened, calculatorHost);
  } finally {
    await calculatorHost.close();
    await opened.store.close().catch(() => undefined);
  }
}

/** The bin's entry: runs the CLI, then exits once stdout and stderr are flushed, whatever timers are still pending. */
export async function runAndExit(argv: string[]): Promise<never> {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  const code = await main(argv);
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // A referenced timer left by a dependency (an SDK's retry sleep) must not keep a finished CLI alive.
  process.exit(code);
}

/** A reader that went away (`stageloop pipelines | head -1`) ends our output, not the run: no EPIPE trace, same exit code. */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}
