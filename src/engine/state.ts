// RunState: all per-run data, plain JSON only, with one slot per stage that owns it.
import { StageloopError } from '../common/stageloop-error.js';
import type { JsonObject, JsonValue } from '../common/json.js';
import type { ChatMessage, ToolCall } from '../model/types.js';
import type { ToolOutcome } from './tool-port.js';
import type { Usage } from './usage.js';

export type { Usage };

export interface RunInput {
  task: string;
  /** Free-form, JSON-only options a stage may read (for example a tool allow-list). */
  options?: JsonObject;
  /** The conversation this run is a turn of (the history and memory stages read it), scoped by `user`. */
  session?: string;
  /** The user or tenant a session belongs to (default "default"). */
  user?: string;
}

/** The current turn's tool traffic, shared by think (writes calls), guards, act (writes results) and observe. */
export interface Turn {
  toolCalls: ToolCall[];
  /** Results already decided for this turn; act skips calls that have one (a guard may pre-fill a refusal). */
  results: ToolOutcome[];
}

/** What guards ask of the next reasoning call; think consumes and clears it. */
export interface TurnDirectives {
  /** Short notices added to the model's next context (e.g. "the token budget is nearly spent"). */
  notes: string[];
  /** Make the next reasoning call with no tools so the model must answer. */
  withoutTools: boolean;
}

/**
 * Stages add their own typed slot here through declaration merging:
 * `declare module '../src/engine/state.js' { interface StageSlots { think: ThinkSlot } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface StageSlots {}

/** `interrupted`: paused for a person's decision (not over: finalize has not run; resume it with the decision). */
export type RunStatus = 'completed' | 'stopped' | 'failed' | 'cancelled' | 'interrupted';

export interface StopReason {
  kind: string;
  /** The stage that steered, threw or was running; null when the runner itself stopped the run. */
  stage: string | null;
  message: string;
}

export type RunOutcome = StopReason & { status: RunStatus };

export interface RunStateCore {
  runId: string;
  pipeline: string;
  input: RunInput;
  /** 0 during setup, 1-based during the loop, the last iteration during finalize. */
  iteration: number;
  messages: ChatMessage[];
  answer?: string;
  /** True when the answer is a best effort after an early stop. */
  partial?: boolean;
  /** The typed final output (plain JSON), when a stage made one: the final-output stage of a pipeline with an output schema. */
  output?: JsonValue;
  usage: Usage;
  turn: Turn;
  nextTurn: TurnDirectives;
  /** How the run ended; written by the runner just before the finalize zone. */
  stop?: RunOutcome;
}

export type RunState = RunStateCore & { [Slot in keyof StageSlots]?: StageSlots[Slot] };

export function emptyRunUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };
}

export function createRunState(runId: string, pipeline: string, input: RunInput): RunState {
  const state: RunState = {
    runId,
    pipeline,
    input: input.options === undefined ? { task: input.task } : { task: input.task, options: input.options },
    iteration: 0,
    messages: [],
    usage: emptyRunUsage(),
    turn: { toolCalls: [], results: [] },
    nextTurn: { notes: [], withoutTools: false },
  };
  if (input.session !== undefined) state.input.session = input.session;
  if (input.user !== undefined) state.input.user = input.user;
  return state;
}

/** Adds a model reply's usage to the run total. */
export function addUsage(total: Usage, delta: Usage): void {
  total.inputTokens += delta.inputTokens;
  total.outputTokens += delta.outputTokens;
  total.cachedInputTokens += delta.cachedInputTokens;
  total.reasoningTokens += delta.reasoningTokens;
  if (delta.cacheWriteInputTokens)
    total.cacheWriteInputTokens = (total.cacheWriteInputTokens ?? 0) + delta.cacheWriteInputTokens;
  if (delta.estimated) total.estimated = true;
}

/**
 * Makes `state.input` read-only once the loop starts (setup may still redact the task). Options are copied before they
 * are frozen, so the caller's object stays as it was. A write then throws; inputWriteError says which field.
 */
export function freezeInput(state: RunState): void {
  const input = state.input;
  if (Object.isFrozen(input)) return;
  if (input.options !== undefined) input.options = deepFreeze(structuredClone(input.options));
  Object.freeze(input);
}

function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** The engine's own words for a stage that wrote to the frozen input (the TypeError says only "read only property"). */
export function inputWriteError(error: unknown, state: RunState): StageloopError | undefined {
  if (!Object.isFrozen(state.input)) return undefined;
  // Anything may be thrown, a revoked proxy included: whatever cannot be looked at is left as it is.
  try {
    if (!(error instanceof TypeError)) return undefined;
    const field = /(?:read only property|add property|delete property) '?(\w+)'?/.exec(error.message)?.[1];
    if (field === undefined || !(field in state.input || ['task', 'options', 'session', 'user'].includes(field)))
      return undefined;
    return new StageloopError(
      'internal',
      `state.input.${field} is read-only once the run's loop has started: keep what a stage derives from the input in its own slot`,
      { cause: error },
    );
  } catch {
    return undefined;
  }
}
