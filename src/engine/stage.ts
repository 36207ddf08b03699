// The Stage contract, the context a stage runs with, and the injected dependencies.
import type { Signal } from './signal.js';
import type { RunState, RunStatus, Usage } from './state.js';
import type { JsonValue } from '../common/json.js';
import type { TraceHeaders } from '../common/trace-headers.js';
import type { ChatModel } from '../model/types.js';
import type { ToolBox } from './tool-port.js';

export type Zone = 'setup' | 'iteration' | 'finalize';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface IdGenerator {
  newId(): string;
}

/**
 * Every event type a run can report, mapped to its data. Each stage declares the events it emits in its own file,
 * the way it declares its state slot:
 * `declare module '../src/engine/stage.js' { interface RunEvents { my_event: { count: number } } }`.
 * docs/events.md lists them all.
 */
export interface RunEvents {
  run_started: { pipeline: string; task: string };
  stage_started: Record<string, never>;
  stage_finished: { signal?: 'break_loop' | 'abort_run'; kind?: string; reason?: string };
  /** The outcome in full, so a reader of the events alone needs no second request: the answer, typed output and usage. */
  run_finished: {
    status: RunStatus;
    stopReason: { kind: string; stage: string | null; message: string };
    answer: string | null;
    partial: boolean;
    /** The typed final output, when the run had an output schema and produced one. */
    output?: JsonValue;
    usage: Usage;
    iterations: number;
  };
}

export type RunEventType = keyof RunEvents & string;

/** Something that happened during a run, for progress output, logs, streams and tracing: a union discriminated on `type`. */
export type RunEvent = { [Type in RunEventType]: RunEventOf<Type> }[RunEventType];

export interface RunEventOf<Type extends RunEventType> {
  runId: string;
  /** 1, 2, 3... in the order the run emitted its events, with no gap: a consumer can tell it missed one. */
  seq: number;
  type: Type;
  zone: Zone | null;
  stage: string | null;
  iteration: number;
  at: number;
  /** The plan step the event belongs to, when a stage worked for one (steps may run side by side). */
  step?: string;
  /** An agent's run called as a tool: its path from the calling run ("coordinator/researcher"). */
  agent?: string;
  data: Readonly<RunEvents[Type]>;
}

/**
 * The data argument of `ctx.emit`: the data, or a function giving it that is called only when someone listens (so a
 * stage builds nothing for nobody); optional when the event's data may be empty.
 */
export type EmitData<Type extends RunEventType> = {} extends RunEvents[Type]
  ? [data?: EventData<Type>]
  : [data: EventData<Type>];
export type EventData<Type extends RunEventType> = RunEvents[Type] | (() => RunEvents[Type]);

export interface StageInfo {
  name: string;
  zone: Zone;
  iteration: number;
  /** The stage declared itself `quiet` (a guard). */
  quiet?: boolean;
}

/** What a tracer learns of a run: a resumed run links its root span to the first trace's root (`linkTo`). */
export interface RunTraceInfo {
  runId: string;
  pipeline: string;
  /** The root span's context of the run's first trace (a resume's, read from the journal). */
  linkTo?: TraceHeaders | undefined;
  /** Told the root span's context once it exists, so the journal keeps it for later resumes. */
  onRootSpan?: ((root: TraceHeaders) => void) | undefined;
}

/**
 * Wraps a run, its iterations and its stages so a tracer can open a span around each and make it the active
 * context for the model and tool calls inside. Each wrapping method must call `body` exactly once and return its result.
 */
export interface RunTracer {
  /** Asked once when a run starts: false means nothing would be recorded, and the run is not wrapped at all. */
  enabled?(): boolean;
  run<Result extends RunOutcomeSummary>(info: RunTraceInfo, body: () => Promise<Result>): Promise<Result>;
  iteration<Result>(info: { runId: string; iteration: number }, body: () => Promise<Result>): Promise<Result>;
  stage(info: StageInfo & { runId: string }, body: () => StageReturn): StageReturn;
}

/** What a tracer may read from the finished run to label its root span. */
export interface RunOutcomeSummary {
  status: string;
  stopReason: { kind: string; stage: string | null; message: string };
  iterations: number;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
}

/**
 * Everything a stage may use besides the state. Later capabilities add fields through declaration merging;
 * a stage never reads globals or environment variables.
 */
export interface Deps {
  model?: ChatModel;
  tools?: ToolBox;
  clock: Clock;
  ids: IdGenerator;
  tracer?: RunTracer;
  onEvent?: (event: RunEvent) => void;
}

/** What a stage is given besides the state: seven members, the performance affordances kept behind them. */
export interface StageContext {
  /**
   * Aborts when the run is cancelled or a deadline passes (in finalize: when its time limit passes). Undefined when
   * nothing can abort the run (no caller's signal, no deadline, outside finalize): Node 20 takes ~3 µs and ~1 KB to
   * make a signal that could never fire. Pass it on as is to calls whose signal is optional.
   */
  readonly signal: AbortSignal | undefined;
  readonly deps: Deps;
  readonly zone: Zone;
  readonly iteration: number;
  /** Name of the stage being run. */
  readonly stage: string;
  /**
   * Records an event (progress output, tracing). Give the data as a function (`() => data`) where building it costs
   * something: it is called only when someone listens (deps.onEvent).
   */
  emit<Type extends RunEventType>(type: Type, ...data: EmitData<Type>): void;
  /**
   * Aborts whatever is in flight when the clock passes `at` (ms since epoch) and ends the run as `stopped` with
   * this reason and kind. A later call replaces an earlier deadline.
   */
  setDeadline(at: number, reason: string, kind: string): void;
}

/**
 * What `execute` gives back: a signal or nothing, directly or through a promise. A stage with nothing to wait for
 * may return without a promise, which saves the runner an await per call; `async execute` is always fine.
 */
export type StageReturn = Signal | void | Promise<Signal | void>;

export interface Stage {
  readonly name: string;
  /** What the stage needs of the run, checked when the run is assembled (src/engine/stage-needs.ts); a stage that
   * declares nothing may use any port, and keeps the tools in the run. */
  readonly needs?: StageNeeds;
  /** A guard: when it did nothing it makes no span, progress line or timeline row (src/tracing/quiet-guards.ts). */
  readonly quiet?: boolean;
  execute(state: RunState, ctx: StageContext): StageReturn;
}

/** A stage's dependencies: a stage that wraps another (a plan step, a judge) passes the inner one's on. */
export interface StageNeeds {
  /** Ports the stage cannot work without: a run whose deps lack one fails before its first stage, naming it. */
  readonly deps?: readonly (keyof Deps & string)[];
  /** The stage runs the model's tool calls (act): a pipeline with no such stage offers the model no tools. */
  readonly runsTools?: boolean;
}
