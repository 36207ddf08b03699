// The tool box one run's stages see: a box that offers `forRun` (the ToolRegistry does) gives each run a view whose
// every call passes the run's tool gate (approvals, the taint policy), whatever stage makes the call. The runner asks
// for it once, before anything wraps the box (the journal, a plan step), so no pipeline shape can leave it out.
import type { RunState } from './state.js';
import type { ToolBox } from './tool-port.js';

/** What the tool gate reads of the run it guards. */
export interface ToolRun {
  /** The run's own state (never a plan step's view), read at every call. */
  readonly state: RunState;
  /** A held call can be decided: someone answers (deps.approve) or the run can pause until someone does (a store). */
  readonly canAsk: boolean;
}

export interface RunToolBox extends ToolBox {
  /** The box this run's stages see: a gated view, or the box itself when nothing could be held. */
  forRun(run: ToolRun): ToolBox;
}

/** The run's view of its tool box (the box as is when it offers none). */
export function toolsForRun(tools: ToolBox | undefined, run: ToolRun): ToolBox | undefined {
  return tools !== undefined && typeof (tools as Partial<RunToolBox>).forRun === 'function'
    ? (tools as RunToolBox).forRun(run)
    : tools;
}
