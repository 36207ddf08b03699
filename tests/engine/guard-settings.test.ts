// The guard settings schema: its ranges, 0 = off, the rules between settings, and how each door names a bad value
// (the CLI by its flag, the recipe and the HTTP body by the field).
import { describe, expect, it } from 'vitest';
import { parseGuardFlags } from '../../app/cli/guard-flags.js';
import { makeRecipe, recordedRecipe } from '../../app/recipe.js';
import { codeOf } from '../../src/common/stageloop-error.js';
import { guardSettingsSchema, type GuardSettings } from '../../src/engine/guard-settings.js';
import { parseWith, startRunSchema } from '../../src/server/request-schemas.js';
import type { RunSummary } from '../../src/store/types.js';

const problemOf = (settings: Record<string, unknown>) => {
  const parsed = guardSettingsSchema.safeParse(settings);
  return parsed.success ? undefined : `${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`;
};
const thrown = (action: () => unknown): Error => {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('nothing was thrown');
};

describe('guardSettingsSchema', () => {
  it('takes typed values in range, and 0 where 0 turns a guard off', () => {
    const every: Required<GuardSettings> = {
      maxTokens: 5000,
      maxCostUsd: 0.5,
      timeoutSeconds: 1.5,
      maxIterations: 1,
      injection: 'block',
      loopLimit: 2,
      onRepeat: 'ask',
      contextBudget: 100,
      budgetMode: 'hard',
      noGuards: false,
      sessionMaxTokens: 20_000,
      sessionMaxCostUsd: 0.25,
    };
    expect(guardSettingsSchema.parse(every)).toEqual(every);
    expect(guardSettingsSchema.parse({ maxTokens: 0, timeoutSeconds: 0, loopLimit: 0, contextBudget: 0 })).toEqual({
      maxTokens: 0,
      timeoutSeconds: 0,
      loopLimit: 0,
      contextBudget: 0,
    });
  });

  it.each([
    [{ maxTokens: 1.5 }, 'maxTokens: must be a whole number of tokens (0 turns the token budget off)'],
    [{ maxTokens: '5000' }, 'maxTokens: must be a whole number of tokens (0 turns the token budget off)'],
    [{ maxCostUsd: 0 }, 'maxCostUsd: must be a positive number of US dollars'],
    [{ timeoutSeconds: -1 }, 'timeoutSeconds: must be a number of seconds (0 turns the time limit off)'],
    [{ maxIterations: 0 }, 'maxIterations: must be a positive whole number'],
    [{ loopLimit: 1 }, 'loopLimit: must be a whole number of at least 2 (the first call always runs), or 0 for off'],
    [
      { contextBudget: Number.POSITIVE_INFINITY },
      'contextBudget: must be a whole number of tokens (0 turns pruning off)',
    ],
    [{ injection: 'warn' }, 'injection: must be flag, redact or block'],
    [{ onRepeat: 'never' }, 'onRepeat: must be "refuse" or "ask"'],
    [{ budgetMode: 'strict' }, 'budgetMode: must be "soft", "hard" or "ask"'],
    [{ noGuards: 'yes' }, 'noGuards: must be true or false'],
    [
      { onRepeat: 'ask', loopLimit: 0 },
      'onRepeat: onRepeat needs the repeated-call guard, but loopLimit 0 turns it off: drop one of the two',
    ],
    [
      { budgetMode: 'hard', maxTokens: 0 },
      'budgetMode: budgetMode hard needs maxTokens or maxCostUsd: it decides before each model call whether that call would cross them',
    ],
  ])('refuses %j, naming the field', (settings, message) => {
    expect(problemOf(settings)).toBe(message);
  });

  it("is the recipe's: a bad value is a config error naming guards.<field>", () => {
    const error = thrown(() => makeRecipe({ guards: { loopLimit: 1 } }));
    expect(codeOf(error)).toBe('config');
    expect(error.message).toBe(
      'the run recipe: guards.loopLimit: must be a whole number of at least 2 (the first call always runs), or 0 for off',
    );
  });

  it('reads the flag text a recipe recorded by an older CLI as numbers', () => {
    const run = {
      runId: 'r1',
      pipeline: 'react',
      input: { task: 'x' },
      options: {
        recipe: {
          pipeline: 'react',
          guards: { maxTokens: '5000', maxCostUsd: '0.5', loopLimit: '4', budgetMode: 'hard', onRepeat: 'ask' },
        },
      },
    } as unknown as RunSummary;
    expect(recordedRecipe(run)!.guards).toEqual({
      maxTokens: 5000,
      maxCostUsd: 0.5,
      loopLimit: 4,
      budgetMode: 'hard',
      onRepeat: 'ask',
    });
  });
});

describe('the CLI flags: one table from flag to setting, whose flags name every error', () => {
  it('reads every guard flag into its setting', () => {
    const values = {
      'max-tokens': '5000',
      'max-cost': '0.5',
      timeout: '30',
      'max-iterations': '4',
      guard: ['injection=redact'],
      'loop-limit': '5',
      'on-repeat': 'refuse',
      'context-budget': '900',
      'budget-mode': 'soft',
      'no-guards': true,
    };
    expect(parseGuardFlags(values)).toEqual({
      maxTokens: 5000,
      maxCostUsd: 0.5,
      timeoutSeconds: 30,
      maxIterations: 4,
      injection: 'redact',
      loopLimit: 5,
      onRepeat: 'refuse',
      contextBudget: 900,
      budgetMode: 'soft',
      noGuards: true,
    });
    expect(parseGuardFlags({ guard: ['injection'] })).toEqual({ injection: 'flag' });
    expect(parseGuardFlags({})).toEqual({});
  });

  it.each([
    [
      { 'max-tokens': '12k' },
      '--max-tokens must be a whole number of tokens (0 turns the token budget off), got "12k"',
    ],
    [{ 'max-tokens': '-1' }, '--max-tokens must be a whole number of tokens (0 turns the token budget off), got "-1"'],
    [{ 'max-cost': '0' }, '--max-cost must be a positive number of US dollars, got "0"'],
    [{ timeout: 'soon' }, '--timeout must be a number of seconds (0 turns the time limit off), got "soon"'],
    [{ 'max-iterations': 'zero' }, '--max-iterations must be a positive whole number, got "zero"'],
    [
      { 'loop-limit': '1' },
      '--loop-limit must be a whole number of at least 2 (the first call always runs), or 0 for off, got "1"',
    ],
    [{ 'context-budget': '' }, '--context-budget must be a whole number of tokens (0 turns pruning off), got ""'],
    [{ 'on-repeat': 'maybe' }, '--on-repeat must be "refuse" or "ask", got "maybe"'],
    [{ 'budget-mode': 'strict' }, '--budget-mode must be "soft", "hard" or "ask", got "strict"'],
    [{ guard: ['injection=warn'] }, '--guard injection=warn is not an action: use flag, redact or block'],
    [
      { 'on-repeat': 'ask', 'loop-limit': '0' },
      '--on-repeat needs the repeated-call guard, but --loop-limit 0 turns it off: drop one of the two',
    ],
    [
      { 'budget-mode': 'hard', 'max-iterations': '3' },
      '--budget-mode hard needs --max-tokens or --max-cost: it decides before each model call whether that call would cross them',
    ],
  ])('refuses %j in one line naming the flag', (values, message) => {
    const error = thrown(() => parseGuardFlags(values));
    expect(error.message).toBe(message);
    expect(['usage', 'config']).toContain(codeOf(error));
  });
});

describe('the HTTP body: the settings a client may set, by their fields', () => {
  const optionsProblem = (options: Record<string, unknown>) =>
    thrown(() => parseWith(startRunSchema, { task: 'x', options })).message;

  it("takes the picked settings with the server's own ranges: no switch-off, at most 1000 turns and a day", () => {
    const options = {
      maxTokens: 5000,
      maxCostUsd: 1,
      timeoutSeconds: 60,
      maxIterations: 4,
      injection: 'flag',
      loopLimit: 3,
      contextBudget: 900,
      budgetMode: 'hard',
    };
    expect(parseWith(startRunSchema, { task: 'x', options }).options).toEqual(options);
    expect(optionsProblem({ maxTokens: 0 })).toBe(
      'options.maxTokens: must be above 0: a request cannot switch a guard off',
    );
    expect(optionsProblem({ loopLimit: 0 })).toBe(
      'options.loopLimit: must be above 0: a request cannot switch a guard off',
    );
    expect(optionsProblem({ maxIterations: 1001 })).toBe('options.maxIterations: must be at most 1000');
    expect(optionsProblem({ timeoutSeconds: 86_401 })).toBe(
      'options.timeoutSeconds: must be at most 86400 seconds (a day)',
    );
    expect(optionsProblem({ maxTokens: '5000' })).toBe(
      'options.maxTokens: must be a whole number of tokens (0 turns the token budget off)',
    );
    expect(optionsProblem({ budgetMode: 'hard' })).toBe(
      'options.budgetMode: budgetMode hard needs maxTokens or maxCostUsd: it decides before each model call whether that call would cross them',
    );
    expect(optionsProblem({ onRepeat: 'ask' })).toMatch(/^options: Unrecognized key: "onRepeat"/);
    expect(optionsProblem({ noGuards: true })).toMatch(/^options: Unrecognized key: "noGuards"/);
  });
});
