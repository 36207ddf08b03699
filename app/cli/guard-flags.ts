// The guard flags of `stageloop run` (pipelines, eval variants): one table from flag to setting reads them into the
// guard settings (src/engine/guard-settings.ts), and names the flag in every error about a setting.
import { StageloopError } from '../../src/common/stageloop-error.js';
import {
  checkGuardSettings,
  numbersOfText,
  type GuardSettingName,
  type GuardSettings,
  type SettingNamer,
} from '../../src/engine/guard-settings.js';

/** Each guard flag and the setting it gives. */
export const guardFlagTable = {
  '--max-tokens': 'maxTokens',
  '--max-cost': 'maxCostUsd',
  '--timeout': 'timeoutSeconds',
  '--max-iterations': 'maxIterations',
  '--guard injection': 'injection',
  '--loop-limit': 'loopLimit',
  '--on-repeat': 'onRepeat',
  '--context-budget': 'contextBudget',
  '--budget-mode': 'budgetMode',
  '--no-guards': 'noGuards',
  '--session-max-tokens': 'sessionMaxTokens',
  '--session-max-cost': 'sessionMaxCostUsd',
} as const satisfies Record<string, GuardSettingName>;

type GuardFlag = keyof typeof guardFlagTable;
const flagOfSetting = Object.fromEntries(
  Object.entries(guardFlagTable).map(([flag, setting]) => [setting, flag]),
) as Record<GuardSettingName, GuardFlag>;

/** A setting by its flag, for messages: `--loop-limit`. */
export const flagOf: SettingNamer = (setting) => flagOfSetting[setting];

/** The flags as node's parser takes them (`--guard` may repeat: injection[=flag|redact|block]). */
export const guardOptions = {
  'max-tokens': { type: 'string' },
  'max-cost': { type: 'string' },
  timeout: { type: 'string' },
  'max-iterations': { type: 'string' },
  guard: { type: 'string', multiple: true },
  'loop-limit': { type: 'string' },
  'on-repeat': { type: 'string' },
  'context-budget': { type: 'string' },
  'budget-mode': { type: 'string' },
  'no-guards': { type: 'boolean' },
  'session-max-tokens': { type: 'string' },
  'session-max-cost': { type: 'string' },
} as const satisfies Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

/** The guard settings of parsed flag values; a bad one is a one-line error naming its flag (`--max-tokens must be ...`). */
export function parseGuardFlags(
  values: Readonly<Record<string, string | boolean | string[] | undefined>>,
): GuardSettings {
  const text: Record<string, unknown> = {};
  for (const [flag, setting] of Object.entries(guardFlagTable)) {
    const value = flag === '--guard injection' ? injectionAction(values.guard) : values[flag.slice(2)];
    if (value !== undefined && value !== false) text[setting] = value;
  }
  return checkGuardSettings(numbersOfText(text), flagOf, text);
}

function injectionAction(values: string | boolean | string[] | undefined): string | undefined {
  let action: string | undefined;
  for (const value of Array.isArray(values) ? values : []) {
    const [name, mode = 'flag'] = value.split('=', 2);
    if (name !== 'injection')
      throw new StageloopError(
        'usage',
        `--guard knows only "injection", got "${name}": use --guard injection[=flag|redact|block]`,
      );
    if (mode !== 'flag' && mode !== 'redact' && mode !== 'block')
      throw new StageloopError('usage', `--guard injection=${mode} is not an action: use flag, redact or block`);
    action = mode;
  }
  return action;
}
