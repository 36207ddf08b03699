// remember: the model stores or updates a durable fact of the session; the memory stage saves it with the turn.
import { z } from 'zod';
import { checkFact, factKeyPattern, maxFactValueLength } from '../sessions/types.js';
import { defineTool, type Tool } from './define-tool.js';

export const rememberToolName = 'remember';

/** What a successful call returns: the memory stage reads the facts back from these results. */
export interface RememberResult {
  remembered: { key: string; value: string };
}

export function rememberTool(): Tool {
  return defineTool({
    name: rememberToolName,
    description:
      'Remember a durable fact for later turns of this conversation: a user preference, a resolved id, a learned constraint. ' +
      'The same key again updates the fact. Returns the fact as saved; it is kept when this turn ends.',
    parameters: z.strictObject({
      key: z.string().regex(factKeyPattern).describe('a short name, e.g. "preferred unit"'),
      value: z.string().min(1).max(maxFactValueLength),
    }),
    execute({ key, value }): string {
      const result: RememberResult = { remembered: checkFact(key, value) };
      return JSON.stringify(result);
    },
  });
}

/** The facts a run's remember calls stored, latest last; a result that is not one is ignored. */
export function rememberedFacts(
  results: readonly { name: string; content: string }[],
): Array<RememberResult['remembered']> {
  const facts: Array<RememberResult['remembered']> = [];
  for (const result of results) {
    if (result.name !== rememberToolName) continue;
    try {
      const parsed = JSON.parse(result.content) as Partial<RememberResult>;
      const fact = parsed.remembered;
      if (typeof fact?.key === 'string' && typeof fact.value === 'string')
        facts.push({ key: fact.key, value: fact.value });
    } catch {
      // A failed call's text ("error: ...") is not a saved fact.
    }
  }
  return facts;
}
