// Parses `stageloop run` flags into plain options; every mistake becomes a one-line `usage` StageloopError.
import { StageloopError } from '../../src/common/stageloop-error.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { GuardSettings } from '../../src/engine/guard-settings.js';
import { guardOptions, parseGuardFlags } from './guard-flags.js';
import { providers } from '../providers.js';

export type TraceMode = 'otlp' | 'console';

export interface RunFlags {
  task: string;
  /** The guard flags (app/cli/guard-flags.ts) as settings. */
  guards: GuardSettings;
  pipeline: string;
  /** --agent NAME: run this agent of the config file (its pipeline, instructions, tools and agents). */
  agent?: string;
  model?: string;
  baseUrl?: string;
  /** --provider NAME: the row of app/providers.ts that builds the model (else STAGELOOP_PROVIDER, else today's rules). */
  provider?: string;
  offline: boolean;
  json: boolean;
  /** Print every run event as a JSON line on stdout instead of the answer. */
  events: boolean;
  quiet: boolean;
  verbose: boolean;
  trace?: TraceMode;
  traceContent: boolean;
  /** Where the run is recorded (--store), unless --no-store. */
  store?: string;
  noStore: boolean;
  /** MCP servers: --mcp-config FILE (else stageloop.config.json here) and --mcp NAME=COMMAND. */
  mcpConfig?: string;
  mcp: string[];
  /** --mcp-timeout SECONDS: how long an MCP server may stay silent during a call, for servers whose config sets none. */
  mcpTimeout?: number;
  /** --output-schema FILE: a JSON Schema the final answer must match; the JSON value is printed. */
  outputSchema?: string;
  /** --fallback-model NAME: models on the same server to move to when the first fails. */
  fallbackModels: string[];
  /** --session NAME and --user ID: the run is a turn of that conversation. */
  session?: string;
  user?: string;
  /** --approve-tools NAME,... / --approve-all-tools: these calls wait for a person (docs/approvals.md). */
  approveTools?: string[] | 'all';
  /** --ask-on-limit: a spent budget asks a person (at a terminal) to extend it, finish or stop. */
  askOnLimit: boolean;
  /** --taint-policy ask|refuse|off (default ask): a write call after web or MCP content waits for a person, is refused, or runs. */
  taintPolicy: 'ask' | 'refuse' | 'off';
  /** --max-parallel-steps N: plan steps that may run at once (plan-execute-replan; default 3, 1 = one after another). */
  maxParallelSteps?: number;
  /** --context-file PATH (repeatable): more context files for the system prompt (docs/context.md). */
  contextFiles: string[];
  /** --skills DIR (repeatable): more folders of NAME/SKILL.md skills. */
  skills: string[];
}

export const runOptions = {
  ...guardOptions,
  pipeline: { type: 'string', short: 'p' },
  model: { type: 'string', short: 'm' },
  'base-url': { type: 'string' },
  provider: { type: 'string' },
  offline: { type: 'boolean' },
  json: { type: 'boolean' },
  events: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean' },
  trace: { type: 'string' },
  'trace-content': { type: 'boolean' },
  store: { type: 'string' },
  'no-store': { type: 'boolean' },
  'mcp-config': { type: 'string' },
  mcp: { type: 'string', multiple: true },
  'mcp-timeout': { type: 'string' },
  'fallback-model': { type: 'string', multiple: true },
  'output-schema': { type: 'string' },
  session: { type: 'string' },
  user: { type: 'string' },
  'approve-tools': { type: 'string' },
  'approve-all-tools': { type: 'boolean' },
  'ask-on-limit': { type: 'boolean' },
  'taint-policy': { type: 'string' },
  'max-parallel-steps': { type: 'string' },
  agent: { type: 'string' },
  'context-file': { type: 'string', multiple: true },
  skills: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** The one flag parser: node's, strict, with its errors turned into one line that names the fix (via `parse`). */
type ParsedFlags<Options extends OptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: Options; allowPositionals: boolean; strict: true }>
>;

export function parseFlags<const Options extends OptionsConfig>(
  command: string,
  argv: readonly string[],
  options: Options,
  allowPositionals = true,
): ParsedFlags<Options> {
  return parse(command, () => parseArgs({ args: [...argv], options, allowPositionals, strict: true }));
}

/** Runs node's parser, turning its errors into a message that names the fix; every command parses through it. */
export function parse<Parsed>(command: string, read: () => Parsed): Parsed {
  try {
    return read();
  } catch (error) {
    const message =
      error instanceof Error
        ? error.message.split('\n')[0]!.replace(/\. To specify a positional.*$/, '')
        : String(error);
    // node calls a value that starts with "-" ambiguous; say how to write it instead.
    const ambiguous = /^Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(message);
    if (ambiguous)
      throw new StageloopError(
        'usage',
        `${ambiguous[1]} got a value starting with "-": write it as ${ambiguous[1]}=VALUE`,
      );
    throw new StageloopError('usage', `${ourWording(message)}: run "stageloop ${command} --help" for the options`);
  }
}

/** Node's parser wording ("Unknown option '--x'", "Option '--max-tokens <value>' argument missing") in ours. */
function ourWording(message: string): string {
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) return `${unknown[1]} is not an option of this command`;
  const missing = /^Option '(-\w, )?(--[\w-]+)[^']*' argument missing/.exec(message);
  if (missing) return `${missing[2]} needs a value (${missing[2]} VALUE)`;
  const unexpected = /^Unexpected argument '([^']+)'/.exec(message);
  if (unexpected) return `"${unexpected[1]}" is not expected here: this command takes no arguments besides its options`;
  const noValue = /^Option '(--[\w-]+)' does not take an argument/.exec(message);
  if (noValue) return `${noValue[1]} is a switch and takes no value: write it alone`;
  return message.replace(/\.$/, '');
}

function taintPolicyFlag(value: string | undefined): RunFlags['taintPolicy'] {
  if (value === undefined) return 'ask';
  if (value === 'ask' || value === 'refuse' || value === 'off') return value;
  throw new StageloopError(
    'usage',
    `--taint-policy must be ask, refuse or off, got ${JSON.stringify(value)}: ask (the default) pauses a write call after web or MCP content for approval`,
  );
}

type RunValues = ReturnType<typeof parseFlags<typeof runOptions>>['values'];

export function parseRunFlags(argv: readonly string[], command: 'run' | 'chat' = 'run'): RunFlags | 'help' {
  const { values, positionals } = parseFlags('run', argv, runOptions);
  if (values.help) return 'help';
  return runFlagsOf(values, positionals, command);
}

/** The run flags of parsed values: `submit` parses the flags of `run` beside its own and reads them here. */
export function runFlagsOf(
  values: RunValues,
  positionals: readonly string[],
  command: 'run' | 'chat' = 'run',
): RunFlags {
  if (positionals.length === 0)
    throw new StageloopError('usage', 'stageloop run needs a task: stageloop run "What is 17 * 23 + 4?"');
  if (positionals.length > 1) {
    throw new StageloopError(
      'usage',
      `stageloop run takes one task but got ${positionals.length} words: put the task in quotes`,
    );
  }
  const task = positionals[0]!.trim();
  if (task === '') throw new StageloopError('usage', 'the task is empty: stageloop run "What is 17 * 23 + 4?"');
  const trace = values.trace;
  if (trace !== undefined && trace !== 'otlp' && trace !== 'console') {
    throw new StageloopError('usage', `--trace must be "otlp" or "console", got "${trace}"`);
  }
  if (values.json && values.quiet)
    throw new StageloopError(
      'usage',
      '--json and --quiet cannot be combined: --json already prints only the JSON result',
    );
  if (values.events && (values.json || values.quiet))
    throw new StageloopError(
      'usage',
      `--events cannot be combined with --${values.json ? 'json' : 'quiet'}: --events prints only the event lines`,
    );
  const flags: RunFlags = {
    task,
    guards: parseGuardFlags(values),
    pipeline: values.pipeline ?? 'react',
    offline: values.offline ?? false,
    json: values.json ?? false,
    events: values.events ?? false,
    quiet: values.quiet ?? false,
    verbose: values.verbose ?? false,
    traceContent: values['trace-content'] ?? false,
    noStore: values['no-store'] ?? false,
    mcp: values.mcp ?? [],
    fallbackModels: values['fallback-model'] ?? [],
    askOnLimit: values['ask-on-limit'] ?? false,
    taintPolicy: taintPolicyFlag(values['taint-policy']),
    contextFiles: values['context-file'] ?? [],
    skills: values.skills ?? [],
  };
  const approveTools = approvalFlags(values['approve-tools'], values['approve-all-tools']);
  if (approveTools !== undefined) flags.approveTools = approveTools;
  if (values['mcp-config'] !== undefined) flags.mcpConfig = values['mcp-config'];
  if (values['mcp-timeout'] !== undefined) flags.mcpTimeout = mcpTimeoutFlag(values['mcp-timeout']);
  if (values['output-schema'] !== undefined) flags.outputSchema = values['output-schema'];
  if (values.store !== undefined && flags.noStore)
    throw new StageloopError('usage', '--store and --no-store cannot be combined: give one');
  if (values.store !== undefined) flags.store = values.store;
  if (values.model !== undefined) flags.model = values.model;
  if (values.agent !== undefined) flags.agent = values.agent;
  if (values['base-url'] !== undefined) flags.baseUrl = values['base-url'];
  if (values.provider !== undefined) flags.provider = providerFlag(values.provider, flags.offline);
  if (trace !== undefined) flags.trace = trace;
  if (command === 'run' && values.user !== undefined && values.session === undefined)
    throw new StageloopError('usage', '--user names whose session a run is a turn of: add --session NAME');
  if (values.session !== undefined) flags.session = values.session;
  if (values.user !== undefined) flags.user = values.user;
  const sessionLimit = ['session-max-tokens', 'session-max-cost'] as const;
  const given = sessionLimit.find((flag) => values[flag] !== undefined);
  if (command === 'run' && values.session === undefined && given !== undefined)
    throw new StageloopError('usage', `--${given} caps the turns of a session: add --session NAME`);
  const parallel = values['max-parallel-steps'];
  if (parallel !== undefined) {
    if (!/^[1-9]\d*$/.test(parallel))
      throw new StageloopError(
        'usage',
        `--max-parallel-steps must be a whole number, 1 or more, got "${parallel}": 1 runs plan steps one after another`,
      );
    flags.maxParallelSteps = Number(parallel);
  }
  return flags;
}

/** --provider: a row of the provider table; with --offline only `offline` (the two would contradict each other). */
function providerFlag(name: string, offline: boolean): string {
  if (!Object.hasOwn(providers, name))
    throw new StageloopError(
      'usage',
      `--provider ${name} is not a provider: choose one of ${Object.keys(providers).join(', ')}`,
    );
  if (offline && name !== 'offline')
    throw new StageloopError('usage', `--provider ${name} and --offline contradict each other: give one`);
  return name;
}

export function parsePipelinesFlags(argv: readonly string[]): { guards: GuardSettings; json: boolean } | 'help' {
  const options = { ...guardOptions, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  const { values, positionals } = parseFlags('pipelines', argv, options);
  if (values.help) return 'help';
  if (positionals.length > 0)
    throw new StageloopError('usage', `stageloop pipelines takes no arguments, got "${positionals[0]}"`);
  return { guards: parseGuardFlags(values), json: values.json ?? false };
}

/** `stageloop chat` takes the flags of `run` and no task: each turn's task is typed at the prompt. */
export function parseChatFlags(argv: readonly string[]): RunFlags | 'help' {
  const { positionals } = parseFlags('chat', argv, runOptions);
  if (positionals.length > 0)
    throw new StageloopError('usage', `stageloop chat takes no task (type it at the prompt), got "${positionals[0]}"`);
  return parseRunFlags([...argv, '--', 'chat'], 'chat');
}

function approvalFlags(names: string | undefined, all: boolean | undefined): string[] | 'all' | undefined {
  if (all && names !== undefined)
    throw new StageloopError(
      'usage',
      '--approve-tools and --approve-all-tools cannot be combined: --approve-all-tools already covers every tool',
    );
  if (all) return 'all';
  if (names === undefined) return undefined;
  const list = names.split(',').map((name) => name.trim());
  if (list.some((name) => !/^[a-zA-Z0-9_-]{1,64}$/.test(name)))
    throw new StageloopError(
      'usage',
      `--approve-tools takes tool names separated by commas, like --approve-tools calculator,web_search; got "${names}"`,
    );
  return list;
}

/** --mcp-timeout SECONDS: a positive number of seconds. */
function mcpTimeoutFlag(text: string): number {
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds <= 0)
    throw new StageloopError(
      'usage',
      `--mcp-timeout takes a number of seconds above 0, like --mcp-timeout 120; got "${text}"`,
    );
  return seconds;
}
