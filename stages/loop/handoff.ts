// handoff (iteration, after act): reads turn.results; on a handoff call (`transfer_to_NAME`) writes answer/partial/output and the handoff slot (with the chain), emits `handoff`; returns breakLoop 'handoff' when the target answered, abortRun with the target's stop kind when its run did not complete, else no signal.
import { abortRun, breakLoop, type Signal } from '../../src/engine/signal.js';
import type { Stage } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import { insertAfter, type Pipeline } from '../../src/engine/pipeline.js';
import { HANDOFF_TOOL_PREFIX } from '../../src/agents/handoff-conversation.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    /** `answeredBy`: the agent at the end of the chain, when the target handed off in turn (else the target). */
    handoff: { agent: string; runId: string; status: string; answeredBy: string };
  }
}

export function handoffStage(): Stage {
  return {
    name: 'handoff',
    execute(state, ctx) {
      const taken = handedOff(state);
      if (taken === undefined) return undefined;
      const { outcome, agent } = taken;
      const result = outcome.result;
      // The target's own run id (a recorded one is `<run id>.<call id>`, which a result recorded without it falls back on).
      const runId =
        (result.ok ? result.agent?.runId : result.error.agent?.runId) ?? `${state.runId}.${outcome.call.id}`;
      const chain = [{ agent, runId }, ...(result.ok ? (result.agent?.handoffs ?? []) : [])];
      state.handoff = { agent, runId, chain };
      const answeredBy = chain.at(-1)!.agent;
      if (result.ok) {
        // The target's answer (and typed output) is this run's; the rest of the iteration (observe) keeps the conversation whole.
        state.answer = result.content;
        if (result.agent?.output !== undefined) state.output = result.agent.output;
        if (result.truncated === true) state.partial = true;
        ctx.emit('handoff', { agent, runId, status: 'completed', answeredBy });
        return breakLoop(`handed off to ${chain.map((link) => link.agent).join(', then ')}, which answered`, 'handoff');
      }
      const stop = result.error.agent!;
      ctx.emit('handoff', { agent, runId, status: stop.status, answeredBy });
      return stopped(agent, stop.stopKind, result.error.message);
    },
  };
}

/** The handoff stage right after act: a pipeline whose tools include handoffs. */
export function withHandoffs(pipeline: Pipeline): Pipeline {
  return insertAfter(pipeline, 'act', handoffStage());
}

/** The turn's first handoff whose target ran; a refused one (depth, a second handoff) is an ordinary tool error. */
function handedOff(state: RunState) {
  for (const outcome of state.turn.results) {
    if (!outcome.call.name.startsWith(HANDOFF_TOOL_PREFIX)) continue;
    if (!outcome.result.ok && outcome.result.error.agent === undefined) continue;
    return { outcome, agent: outcome.call.name.slice(HANDOFF_TOOL_PREFIX.length) };
  }
  return undefined;
}

/** The rest of the run was the target's: its stop is this run's. */
function stopped(agent: string, kind: string, message: string): Signal {
  return abortRun(
    `handed off to ${agent}, which did not finish: ${message}`,
    /^[a-z][a-z0-9_]*$/.test(kind) ? kind : 'handoff_stopped',
  );
}
