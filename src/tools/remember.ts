// remember: the model stores or updates a durable fact of the session, written when the call runs. The call is a
// journaled tool call, so a resume or replay serves its result instead of writing the fact again; a value the fact
// store refuses is a failed call the model reads.
import { z } from 'zod';
import {
  checkFact,
  factKeyPattern,
  maxFactValueLength,
  sessionScope,
  type SessionScope,
  type SessionStore,
} from '../sessions/types.js';
import { currentToolCaller, wantToolCallers } from './call-scope.js';
import { defineTool, type Tool } from './define-tool.js';
import { ToolFailure } from './tool-failure.js';

export const rememberToolName = 'remember';

/** What a successful call returns: the fact as saved. */
export interface RememberResult {
  remembered: { key: string; value: string };
}

/** Where facts go: a session of a store. */
export interface FactTarget {
  sessions: SessionStore;
  scope: SessionScope;
}

/**
 * The tool. With `target`, every call writes there (the application binds the run's session, so agents and handoffs
 * it starts write there too); without, the calling run's `deps.sessions` and session (its input's).
 */
export function rememberTool(target?: FactTarget): Tool {
  wantToolCallers();
  return defineTool({
    name: rememberToolName,
    description:
      'Remember a durable fact for later turns of this conversation: a user preference, a resolved id, a learned constraint. ' +
      'The same key again updates the fact. Returns the fact as saved.',
    parameters: z.strictObject({
      key: z.string().regex(factKeyPattern).describe('a short name, e.g. "preferred unit"'),
      value: z.string().min(1).max(maxFactValueLength),
    }),
    effects: 'write',
    // Writing one key's value again leaves the facts as they were: a call cut off by a crash runs again by itself.
    idempotent: true,
    async execute({ key, value }): Promise<string> {
      const fact = checkFact(key, value);
      const caller = currentToolCaller();
      const where = target ?? callerTarget(caller);
      await where.sessions.setFact(where.scope, {
        ...fact,
        sourceRun: caller?.runId ?? 'unknown',
        updated: Date.now(),
      });
      const result: RememberResult = { remembered: fact };
      return JSON.stringify(result);
    },
  });
}

function callerTarget(caller: ReturnType<typeof currentToolCaller>): FactTarget {
  const sessions = caller?.deps.sessions;
  if (caller?.session === undefined || sessions === undefined)
    throw new ToolFailure('remember keeps facts of a session, and this run is not a turn of one: nothing was saved');
  return { sessions, scope: sessionScope(caller.session, caller.user) };
}
