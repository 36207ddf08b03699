// The stageloop command line. The CLI is the one place in src/ that assembles stages and pipelines.
import { readFileSync } from 'node:fs';
import { zones } from '../engine/pipeline.js';
import { parsePipelinesFlags, parseRunFlags, UsageError } from './args.js';
import { buildPipeline, pipelineNames } from './assemble.js';
import { runCommand, type CliStreams } from './run-command.js';
import { messageOf } from '../common/error-message.js';

const usage = `Usage: stageloop <command> [options]

Commands:
  run [options] "TASK"   run an agent on a task
  pipelines [--json]     list the built-in pipelines with their three zones and stages

Options:
  -h, --help             show help (also: stageloop run --help)
  -v, --version          print the version

With no OPENAI_API_KEY and no OPENAI_BASE_URL, stageloop uses its built-in offline model.`;

const runUsage = `Usage: stageloop run [options] "TASK"

Model:
  --pipeline, -p NAME      ${pipelineNames.join(' | ')} (default react)
  --model, -m NAME         model name (default OPENAI_MODEL, or gpt-4o-mini on OpenAI)
  --base-url URL           OpenAI-compatible endpoint (default OPENAI_BASE_URL); works without a key
  --offline                use the built-in offline model even when a key is set

Limits and guards:
  --max-iterations N       iteration budget: at N the model must answer without tools
  --max-tokens N           token budget (input + output)
  --max-cost USD           cost budget, from the model price table
  --timeout SECONDS        time budget; the call in flight is cut off at the deadline
  --guard injection[=flag|redact|block]
                           screen the task and tool results for prompt injection (default action: flag)
  --loop-limit N           refuse a tool call repeated N times with the same arguments
  --context-budget TOKENS  prune old tool observations to keep each request under TOKENS

Output:
  --json                   print exactly one JSON object on stdout
  --quiet, -q              print only the answer
  --verbose                print stack traces for errors
  --trace otlp|console     export spans over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT, default http://localhost:4318),
                           or print the span tree after the run
  --trace-content          record messages and tool arguments in spans (also STAGELOOP_TRACE_CONTENT=true)

Exit codes: 0 completed, 3 stopped early (limit or guard), 1 failed, 130 cancelled, 2 usage or configuration error.
Environment: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL, AGENT_TEMPERATURE, SERPAPI_API_KEY (enables web_search).`;

export function version(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return packageJson.version;
}

function pipelinesCommand(argv: string[], streams: CliStreams): number {
  const flags = parsePipelinesFlags(argv);
  if (flags === 'help') {
    streams.stdout.write('Usage: stageloop pipelines [--json] [guard flags of "stageloop run"]\n');
    return 0;
  }
  const listing = pipelineNames.map((name) => {
    const pipeline = buildPipeline(name, flags);
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
      streams.stdout.write(`${version()}\n`);
      return 0;
    }
    if (command === 'pipelines') return pipelinesCommand(rest, streams);
    if (command === 'run') {
      const flags = parseRunFlags(rest);
      if (flags === 'help') {
        streams.stdout.write(`${runUsage}\n`);
        return 0;
      }
      return await runCommand(flags, env, streams);
    }
    throw new UsageError(`unknown command "${command}": run "stageloop --help" for the list of commands`);
  } catch (error) {
    // Configuration and usage mistakes are the user's to fix: one line, exit 2. Anything else is ours: exit 1.
    const isUserError = error instanceof Error && ['UsageError', 'ConfigError', 'GuardConfigError', 'PipelineDefinitionError'].includes(error.name);
    const message = messageOf(error);
    streams.stderr.write(`stageloop: ${message}\n`);
    if (!isUserError && argv.includes('--verbose') && error instanceof Error && error.stack) streams.stderr.write(`${error.stack}\n`);
    return isUserError ? 2 : 1;
  }
}
