// The agent-tool and handoff tests' shared fixtures: exact usage, the calls that ask an agent, the callers' paths.
import type { RunEvent } from '../../src/engine/stage.js';
import type { Usage } from '../../src/engine/state.js';

export const usage = (inputTokens: number, outputTokens: number): Usage => ({
  inputTokens,
  outputTokens,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  estimated: false,
});

/** A call of the agent tool `name` with its task (and any other arguments). */
export const ask = (name: string, task: string, extra: object = {}) => ({
  name,
  arguments: JSON.stringify({ task, ...extra }),
});
export const coordinatorDeps = { agent: { path: ['coordinator'] } };

export function toolResults(events: RunEvent[], agent?: string) {
  return events
    .filter((event) => event.type === 'tool_result' && event.agent === agent)
    .map((event) => event.data as { name: string; ok: boolean; error?: { kind: string; message: string } });
}

/** A call of the handoff tool to `name`. */
export const transfer = (name: string, id = `call_${name}`) => ({ id, name: `transfer_to_${name}`, arguments: '{}' });
export const triageDeps = { agent: { path: ['triage'] } };
export const task = 'I was charged twice for order 42';
