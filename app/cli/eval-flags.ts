// The flags of `stageloop eval` read into what the command needs: counts, the threshold, the variants, the judge
// model. Apart from eval-command.ts, which runs the eval.
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { ChatModel } from '../../src/model/types.js';
import { parseFlags } from './args.js';
import { chooseModel } from '../providers.js';
import { configVariants, parseVariantFlag, type VariantContext, type VariantSpec } from './eval-variants.js';

const options = {
  variant: { type: 'string', multiple: true },
  config: { type: 'string' },
  model: { type: 'string', short: 'm' },
  'base-url': { type: 'string' },
  offline: { type: 'boolean' },
  'judge-model': { type: 'string' },
  repeats: { type: 'string' },
  concurrency: { type: 'string' },
  'grader-timeout': { type: 'string' },
  store: { type: 'string' },
  resume: { type: 'string' },
  replay: { type: 'string' },
  json: { type: 'boolean' },
  html: { type: 'string' },
  baseline: { type: 'string' },
  threshold: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  trace: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The flags as given. */
export type EvalValues = ReturnType<typeof parseEvalArgs>['values'];

export function parseEvalArgs(argv: readonly string[]) {
  return parseFlags('eval', argv, options);
}

/** A count flag (--repeats, --concurrency): absent, the default. */
export function wholeNumber(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new StageloopError('usage', `${flag} must be a whole number >= 1, got "${value}"`);
  return number;
}

/** --grader-timeout SECONDS: how long one grader may take on one run, in milliseconds (undefined: the default). */
export function graderTimeLimitOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!(seconds > 0 && seconds <= 86_400))
    throw new StageloopError('usage', `--grader-timeout must be a number of seconds above 0, got "${value}"`);
  return seconds * 1000;
}

/** --threshold: the drop allowed against the baseline, 0 when absent. */
export function thresholdOf(value: string | undefined): number {
  if (value === undefined) return 0;
  const number = Number(value);
  if (!(number >= 0 && number <= 1))
    throw new StageloopError(
      'usage',
      `--threshold must be a number from 0 to 1 (a drop in pass rate or score), got "${value}"`,
    );
  return number;
}

/** The variants asked for: --variant flags (a bare name picks a config variant), else the config's, else "default". */
export function chosenVariants(values: EvalValues): VariantSpec[] {
  const fromConfig = configVariants(values.config);
  const flags = values.variant ?? [];
  if (flags.length === 0)
    return fromConfig.length > 0 ? fromConfig : [{ name: 'default', pipeline: 'react', guards: {} }];
  const specs = flags.map((flag) => {
    const parsed = parseVariantFlag(flag);
    if (typeof parsed !== 'string') return parsed;
    const found = fromConfig.find((spec) => spec.name === parsed);
    if (found === undefined)
      throw new StageloopError(
        'usage',
        `--variant ${parsed}: no variant "${parsed}" in the config file's "evalVariants"${fromConfig.length ? ` (it has ${fromConfig.map((spec) => spec.name).join(', ')})` : ''}: write --variant ${parsed}=PIPELINE[:FLAGS]`,
      );
    return found;
  });
  const twice = specs.find((spec, index) => specs.findIndex((other) => other.name === spec.name) !== index);
  if (twice !== undefined)
    throw new StageloopError('usage', `variant "${twice.name}" is given twice: give each --variant its own name`);
  return specs;
}

/** The model of "judge" graders: --judge-model on the run's server, else the first server variant's model. */
export async function judgeModelOf(
  values: EvalValues,
  context: VariantContext,
  specs: VariantSpec[],
): Promise<ChatModel | undefined> {
  const name = values['judge-model'];
  if (name === undefined) {
    const server = specs.find((spec) => !(spec.offline ?? context.defaults.offline));
    if (server === undefined) return undefined;
    const choice = await chooseModel(
      {
        ...((server.model ?? context.defaults.model) ? { name: (server.model ?? context.defaults.model)! } : {}),
        ...((server.baseUrl ?? context.defaults.baseUrl)
          ? { baseUrl: (server.baseUrl ?? context.defaults.baseUrl)! }
          : {}),
      },
      context.env,
    );
    return choice.offline ? undefined : choice.model;
  }
  const baseUrl = context.defaults.baseUrl;
  const choice = await chooseModel({ name, ...(baseUrl !== undefined && { baseUrl }) }, context.env).catch(() => {
    throw new StageloopError(
      'usage',
      `--judge-model ${name} needs a model server: set OPENAI_API_KEY or OPENAI_BASE_URL, or pass --base-url`,
    );
  });
  return choice.model;
}
