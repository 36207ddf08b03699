// ToolFailure: what a tool throws to choose the error message, kind and retryability the model sees.
import { StageloopError } from '../common/stageloop-error.js';
import type { PendingDecision } from '../engine/signal.js';
import type { AgentStop } from '../engine/tool-port.js';

/** Kinds a tool may report itself; the executor decides the others (unknown_tool, invalid_arguments, aborted...). */
export type ToolFailureKind = 'failed' | 'timeout' | 'refused' | 'agent_stopped' | 'paused';

/**
 * Throw this from `execute` to control the error result. Anything else a tool throws becomes
 * `{ kind: 'failed', retryable: false }` with the thrown message.
 */
export class ToolFailure extends StageloopError {
  readonly kind: ToolFailureKind;
  readonly retryable: boolean;
  /** Kind `agent_stopped`: how the agent's run ended. */
  readonly agent: AgentStop | undefined;
  /** Kind `paused`: the decisions the call waits for. */
  readonly pending: PendingDecision[] | undefined;

  constructor(
    message: string,
    options: {
      kind?: ToolFailureKind;
      retryable?: boolean;
      cause?: unknown;
      agent?: AgentStop;
      pending?: PendingDecision[];
    } = {},
  ) {
    super('tool', message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'ToolFailure';
    this.kind = options.kind ?? 'failed';
    // A timeout may pass if tried again; a plain failure is assumed permanent unless the tool says otherwise.
    this.retryable = options.retryable ?? this.kind === 'timeout';
    this.agent = options.agent;
    this.pending = options.pending;
  }
}
