// Token counts of a run and of the agent runs under it: imported by the state, the tool port and the run result alike,
// so it imports nothing of theirs (no import circle), only the model types' leaf.
import type { ChatUsage } from '../model/types.js';

/** A run's tokens: the sum of its model calls' usage, the same fields. */
export type Usage = ChatUsage;

/** An agent run a call made, as `RunResult.agents` lists it. */
export interface AgentUsage {
  /** The agent's name (its tool's name). */
  name: string;
  runId: string;
  /** The model the agent was given. */
  model?: string;
  /** Every token of its run, its own agents' included. */
  usage: Usage;
  /** USD for that usage at the listed prices of each agent's model; absent when a price is unknown. */
  cost?: number;
  children: AgentUsage[];
}
