// One MCP tool call as the server's requests during it see it (its own file: the handlers and the sampling gate
// both read it).
import type { ChatUsage } from '../../model/types.js';
import type { PendingDecision } from '../../engine/signal.js';

/** One call of a server's tool, as its request handlers see it. */
export interface McpCallContext {
  server: string;
  /** The tool's name in the run (`server__tool`) and the call's arguments as the model sent them. */
  tool: string;
  arguments: string;
  callId: string | undefined;
  signal: AbortSignal;
  /** Tokens the call spent on the run's model: they count in the run's usage and budgets. */
  reportUsage?(usage: ChatUsage): void;
  /** Ends the call: it waits for this decision (the run pauses and runs the call again once it is given). */
  pause(item: PendingDecision): void;
}
