// Eval variants: parsed from --variant NAME=PIPELINE[:FLAGS] or the config file's `evalVariants`, and turned into
// what a run needs by variantRun(), the one place an eval assembles a pipeline (through the CLI's builders).
import { parseArgs } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { JsonObject } from '../../src/common/json.js';
import { isStageloopError, StageloopError } from '../../src/common/stageloop-error.js';
import type { EvalVariant } from '../../src/eval/evaluate.js';
import type { Environment } from '../../src/model/config.js';
import type { CalculatorWorkerHost } from '../../src/tools/calculator-host.js';
import { costUsd, priceFor } from '../../stages/guards/budget.js';
import { assemble, pipelineNames, pipelineOf, type AssembledRun } from '../assemble.js';
import { makeRecipe, recordOf, type RunRecipe } from '../recipe.js';
import { guardSettingsObject, withGuardRules, type GuardSettings } from '../../src/engine/guard-settings.js';
import { parse } from './args.js';
import { guardOptions, parseGuardFlags } from './guard-flags.js';

/** A variant as JSON: kept in the eval's ledger, so --resume and --replay build the same runs again. */
export interface VariantSpec {
  name: string;
  pipeline: string;
  guards: GuardSettings;
  model?: string;
  baseUrl?: string;
  offline?: boolean;
  /** Tools offered: every default tool when absent, none for [], else these by name. */
  tools?: string[];
  instructions?: string;
}

const variantFlagOptions = {
  ...guardOptions,
  model: { type: 'string', short: 'm' },
  'base-url': { type: 'string' },
  offline: { type: 'boolean' },
  tools: { type: 'string' },
  'no-tools': { type: 'boolean' },
  instructions: { type: 'string' },
} as const;

/** Splits "--max-tokens 500 --instructions 'Be brief.'" like a shell would (quotes and backslashes). */
export function splitFlags(text: string): string[] {
  const words: string[] = [];
  let current: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
      else if (character === '\\' && quote === '"' && index + 1 < text.length) current += text[++index]!;
      else current += character;
    } else if (character === '"' || character === "'") {
      quote = character;
      current ??= '';
    } else if (/\s/.test(character)) {
      if (current !== undefined) words.push(current);
      current = undefined;
    } else {
      current = (current ?? '') + (character === '\\' && index + 1 < text.length ? text[++index]! : character);
    }
  }
  if (quote !== undefined) throw new StageloopError('usage', `variant flags "${text}" have an unclosed ${quote}`);
  if (current !== undefined) words.push(current);
  return words;
}

function checkPipeline(name: string, where: string): string {
  if (!pipelineNames.includes(name))
    throw new StageloopError(
      'usage',
      `${where}: unknown pipeline "${name}": choose one of ${pipelineNames.join(', ')}`,
    );
  return name;
}

/** `NAME=PIPELINE[:FLAGS]`, e.g. `tight=react:--max-tokens 500`; a bare NAME names a config-file variant (undefined here). */
export function parseVariantFlag(value: string): VariantSpec | string {
  const equals = value.indexOf('=');
  if (equals < 0) {
    if (!/^[\w.-]+$/.test(value))
      throw new StageloopError(
        'usage',
        `--variant ${value}: write NAME=PIPELINE[:FLAGS], e.g. --variant tight=react:"--max-tokens 500"`,
      );
    return value;
  }
  const name = value.slice(0, equals).trim();
  if (!/^[\w.-]+$/.test(name))
    throw new StageloopError(
      'usage',
      `--variant ${value}: the name must be letters, digits, ".", "_" or "-", e.g. --variant tight=react`,
    );
  const rest = value.slice(equals + 1);
  const colon = rest.indexOf(':');
  const pipeline = checkPipeline((colon < 0 ? rest : rest.slice(0, colon)).trim(), `--variant ${name}`);
  const words = colon < 0 ? [] : splitFlags(rest.slice(colon + 1));
  const { values, positionals } = parse('eval', () =>
    parseArgs({ args: words, options: variantFlagOptions, allowPositionals: true, strict: true }),
  );
  if (positionals.length > 0)
    throw new StageloopError(
      'usage',
      `--variant ${name}: "${positionals[0]}" is not a flag: variant flags are run flags like --max-tokens 500, --model NAME, --no-tools`,
    );
  const spec: VariantSpec = { name, pipeline, guards: parseGuardFlags(values) };
  if (values.model !== undefined) spec.model = values.model;
  if (values['base-url'] !== undefined) spec.baseUrl = values['base-url'];
  if (values.offline) spec.offline = true;
  if (values['no-tools'] && values.tools !== undefined)
    throw new StageloopError('usage', `--variant ${name}: --tools and --no-tools cannot be combined`);
  if (values['no-tools']) spec.tools = [];
  if (values.tools !== undefined)
    spec.tools = values.tools
      .split(',')
      .map((tool) => tool.trim())
      .filter(Boolean);
  if (values.instructions !== undefined) spec.instructions = values.instructions;
  return spec;
}

const configVariant = z.strictObject({
  pipeline: z.string().default('react'),
  model: z.string().optional(),
  baseUrl: z.string().optional(),
  offline: z.boolean().optional(),
  guards: withGuardRules(z.strictObject(guardSettingsObject.shape)).default({}),
  tools: z.array(z.string()).optional(),
  instructions: z.string().optional(),
});

/** The `evalVariants` section of stageloop.config.json (or --config FILE): `{ "tight": { "pipeline": "react", "guards": { "maxTokens": 500 } } }`. */
export function configVariants(file: string | undefined, cwd = process.cwd()): VariantSpec[] {
  const path = resolve(cwd, file ?? 'stageloop.config.json');
  if (!existsSync(path)) {
    if (file !== undefined) throw new StageloopError('not_found', `--config ${file}: no such file`);
    return [];
  }
  let root: unknown;
  try {
    root = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new StageloopError(
      'config',
      `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const section = (root as { evalVariants?: unknown } | null)?.evalVariants;
  if (section === undefined) return [];
  if (typeof section !== 'object' || section === null || Array.isArray(section))
    throw new StageloopError(
      'config',
      `${path}: "evalVariants" must be an object of variants by name, like { "tight": { "pipeline": "react", "guards": { "maxTokens": 500 } } }`,
    );
  return Object.entries(section).map(([name, entry]) => {
    const parsed = configVariant.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new StageloopError(
        'config',
        `${path}: evalVariants.${name}${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys.join(', ')} (use pipeline, model, baseUrl, offline, guards, tools, instructions)` : issue.message}`,
      );
    }
    const { guards, ...rest } = parsed.data;
    const spec: VariantSpec = { name, pipeline: checkPipeline(rest.pipeline, `${path}: evalVariants.${name}`), guards };
    for (const key of ['model', 'baseUrl', 'offline', 'tools', 'instructions'] as const)
      if (rest[key] !== undefined) Object.assign(spec, { [key]: rest[key] });
    return spec;
  });
}

/** Shared by every variant of one eval: the environment, the command's model flags, one calculator process. */
export interface VariantContext {
  env: Environment;
  defaults: { offline: boolean; model?: string; baseUrl?: string };
  calculatorHost?: CalculatorWorkerHost;
  /** Grading recorded runs again: every call is served from the recording, so no model server is needed. */
  replay?: boolean;
}

/** A variant is a run recipe: its pipeline, model, guards, tools and instructions (the eval's model flags fill the gaps). */
export function recipeOfVariant(spec: VariantSpec, defaults: VariantContext['defaults']): RunRecipe {
  const name = spec.model ?? defaults.model;
  const baseUrl = spec.baseUrl ?? defaults.baseUrl;
  const offline = spec.offline === true || defaults.offline ? true : undefined;
  return makeRecipe(
    {
      pipeline: spec.pipeline,
      model: {
        ...(offline !== undefined && { offline }),
        ...(name !== undefined && { name }),
        ...(baseUrl !== undefined && { baseUrl }),
      },
      guards: spec.guards,
      ...(spec.tools !== undefined && { tools: { only: spec.tools } }),
      ...(spec.instructions !== undefined && { instructions: spec.instructions }),
    },
    `variant ${spec.name}`,
  );
}

export type VariantRun = EvalVariant & { notice: string; close(): Promise<void> };

/** The one function that turns a variant into a run: its recipe assembled (pipeline, model, tools), the recipe recorded with every run, the cost from the price table. */
export async function variantRun(spec: VariantSpec, context: VariantContext): Promise<VariantRun> {
  const recipe = recipeOfVariant(spec, context.defaults);
  const record = { ...recordOf(recipe), variant: spec as unknown as JsonObject };
  if (context.replay) {
    const pipeline = pipelineOf(recipe, recipe.model.name);
    return {
      name: spec.name,
      pipeline,
      record,
      notice: 'replaying recorded runs: no model is called',
      close: () => Promise.resolve(),
    };
  }
  let assembled: AssembledRun;
  try {
    assembled = await assemble(
      recipe,
      context.env,
      context.calculatorHost === undefined ? {} : { calculatorHost: context.calculatorHost },
    );
  } catch (error) {
    if (isStageloopError(error))
      throw new StageloopError(error.code, `variant ${spec.name}: ${error.message}`, { cause: error });
    throw error;
  }
  const price = priceFor(assembled.deps.model.modelName);
  return {
    name: spec.name,
    pipeline: assembled.pipeline,
    deps: assembled.deps,
    record: { ...assembled.record, variant: spec as unknown as JsonObject },
    ...(price !== undefined && { cost: (usage) => costUsd(usage, price) }),
    notice: assembled.notice,
    close: () => assembled.close(),
  };
}
