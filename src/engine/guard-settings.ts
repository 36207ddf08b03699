// The guard settings of a run, one zod schema for every door (recipe, HTTP body, eval variants, config file, CLI flags):
// in src/engine, the lowest layer that knows a run's limits, so src/server reads it as app/ and pipelines/ do.
import { z } from 'zod';
import { StageloopError } from '../common/stageloop-error.js';

/** A number field with one rule; every failure of it says `must be <expected>`, the words each door puts after its name. */
const numberField = (expected: string, rule: (value: number) => boolean) =>
  z.number({ error: `must be ${expected}` }).refine(rule, { error: `must be ${expected}` });
const wholeNumber = (minimum: number) => (value: number) => Number.isInteger(value) && value >= minimum;

/** The fields, without the rules between them (a door that picks some of them adds `guardSettingsConflict` itself). */
export const guardSettingsObject = z.object({
  /** Input + output tokens of the whole run; 0 turns the token budget off. Default: 80% of the model's context window (102,400 tokens for an unknown model). */
  maxTokens: numberField('a whole number of tokens (0 turns the token budget off)', wholeNumber(0)).optional(),
  /** US dollars the run may spend (the model's price must be known). Default: no cost limit. */
  maxCostUsd: numberField('a positive number of US dollars', (value) => value > 0).optional(),
  /** Wall-clock seconds from the run's start; 0 turns the time limit off. Default: 600 for an assembled run (CLI, server, workers), none in code. */
  timeoutSeconds: numberField('a number of seconds (0 turns the time limit off)', (value) => value >= 0).optional(),
  /** Reasoning turns, the last one without tools. Default: the pipeline's cap (ReAct 10, Plan-Execute-Replan 24). */
  maxIterations: numberField('a positive whole number', wholeNumber(1)).optional(),
  /** Screens every door (task, tool descriptions, history and facts, tool results) and flags, redacts or blocks. Default: off. */
  injection: z.enum(['flag', 'redact', 'block'], { error: 'must be flag, redact or block' }).optional(),
  /** The Nth identical failing call is refused; 0 turns the repeated-call guard off. Default 3. */
  loopLimit: numberField(
    'a whole number of at least 2 (the first call always runs), or 0 for off',
    (value) => value === 0 || wholeNumber(2)(value),
  ).optional(),
  /** At that call the repeated-call guard refuses it, or asks a person (which brings the guard on its own). Default refuse. */
  onRepeat: z.enum(['refuse', 'ask'], { error: 'must be "refuse" or "ask"' }).optional(),
  /** Tokens each model request is pruned to; 0 turns pruning off. Default: 80% of the model's context window. */
  contextBudget: numberField('a whole number of tokens (0 turns pruning off)', wholeNumber(0)).optional(),
  /** soft: a spent budget stops the run after the call that crossed it; hard: before a call that would cross maxTokens or maxCostUsd; ask: a spent budget (the run's or the session's) asks a person first. Default soft. */
  budgetMode: z.enum(['soft', 'hard', 'ask'], { error: 'must be "soft", "hard" or "ask"' }).optional(),
  /** None of the default guards (docs/guards.md "Defaults"); the settings given still apply. Default false. */
  noGuards: z.boolean({ error: 'must be true or false' }).optional(),
  /** Input + output tokens of all the turns of the run's session, this one included (a session run only). Default: none. */
  sessionMaxTokens: numberField('a whole number of tokens, 1 or more', wholeNumber(1)).optional(),
  /** US dollars all the turns of the run's session may spend (the model's price must be known). Default: none. */
  sessionMaxCostUsd: numberField('a positive number of US dollars', (value) => value > 0).optional(),
});

export type GuardSettings = z.output<typeof guardSettingsObject>;
export type GuardSettingName = keyof GuardSettings;
/** How a door names a setting in its messages: the CLI by its flag, the others by the field. */
export type SettingNamer = (setting: GuardSettingName) => string;
const fieldName: SettingNamer = (setting) => setting;

/**
 * The documented defaults (docs/guards.md "Defaults"): the token budget at this share of the model's context window,
 * the identical failing call refused at this count, and an assembled run's time limit in seconds.
 */
export const guardDefaults = Object.freeze({ contextShare: 0.8, loopLimit: 3, cliTimeoutSeconds: 600 });

/** The settings that are limits, in the order of the `limits` event (null there: off). */
/** `onRepeat: 'ask'` as the tool gate's repeat rule: a repeated failing call waits for a person at the loop limit. */
export function repeatedCallsRule(settings: GuardSettings): { limit: number } | undefined {
  return settings.onRepeat === 'ask' ? { limit: settings.loopLimit ?? guardDefaults.loopLimit } : undefined;
}

export const limitSettings = [
  'maxIterations',
  'maxTokens',
  'maxCostUsd',
  'timeoutSeconds',
  'loopLimit',
  'contextBudget',
] as const satisfies readonly GuardSettingName[];
export type LimitSetting = (typeof limitSettings)[number];

/** The rules between settings, worded with the door's names; undefined when the settings agree. */
export function guardSettingsConflict(
  settings: GuardSettings,
  name: SettingNamer = fieldName,
): { setting: GuardSettingName; message: string } | undefined {
  if (settings.onRepeat !== undefined && settings.loopLimit === 0) {
    return {
      setting: 'onRepeat',
      message: `${name('onRepeat')} needs the repeated-call guard, but ${name('loopLimit')} 0 turns it off: drop one of the two`,
    };
  }
  const sessionLimit = settings.sessionMaxTokens !== undefined || settings.sessionMaxCostUsd !== undefined;
  if (settings.budgetMode === 'hard' && !settings.maxTokens && settings.maxCostUsd === undefined && !sessionLimit) {
    return {
      setting: 'budgetMode',
      message: `${name('budgetMode')} hard needs ${name('maxTokens')} or ${name('maxCostUsd')}: it decides before each model call whether that call would cross them`,
    };
  }
  return undefined;
}

/** A schema of (some of) the settings with the rules between them added, as zod issues on the setting at fault. */
export function withGuardRules<Schema extends z.ZodType<GuardSettings>>(schema: Schema) {
  return schema.superRefine((settings, context) => {
    const conflict = guardSettingsConflict(settings);
    if (conflict !== undefined)
      context.addIssue({ code: 'custom', path: [conflict.setting], message: conflict.message });
  });
}

/** The whole schema: the fields and the rules between them. */
export const guardSettingsSchema = withGuardRules(guardSettingsObject);

/**
 * The settings checked, or a config error of one line in the door's words: `<name> must be <expected>, got <value>`,
 * with the value as the person wrote it (`shown`: the CLI's flag text).
 */
export function checkGuardSettings(
  given: Readonly<Record<string, unknown>>,
  name: SettingNamer = fieldName,
  shown: Readonly<Record<string, unknown>> = given,
): GuardSettings {
  const parsed = guardSettingsObject.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const setting = issue.path[0] as GuardSettingName;
    throw new StageloopError('config', `${name(setting)} ${issue.message}, got ${JSON.stringify(shown[setting])}`);
  }
  const conflict = guardSettingsConflict(parsed.data, name);
  if (conflict !== undefined) throw new StageloopError('config', conflict.message);
  return parsed.data;
}

/** Settings written as text (CLI flags; recipes recorded before the settings were typed): text that reads as a number becomes it. */
export function numbersOfText(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => {
      if (typeof value !== 'string' || value.trim() === '') return [key, value];
      const number = Number(value);
      return [key, Number.isFinite(number) ? number : value];
    }),
  );
}
