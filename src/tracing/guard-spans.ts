// Spans made after the fact: a guard stage's span only once it is known to have acted (the quiet rule), and a plan
// step's span from its step_started / step_finished events (steps run across several stages and iterations).
import { context, SpanKind, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { isPromiseLike } from '../common/promise-like.js';
import { isSignal } from '../engine/signal.js';
import type { StageInfo, StageReturn } from '../engine/stage.js';
import { SpanNames, StageloopAttributes } from './attributes.js';
import type { GuardWatch, WatchedGuard } from './guard-watch.js';
import { recordFailure } from './span-helpers.js';

/** Now in epoch milliseconds with sub-millisecond precision (a span's start given after the fact); the origin read once. */
const timeOrigin = performance.timeOrigin;
const preciseNow = () => timeOrigin + performance.now();

/**
 * Runs a guard stage without a span of its own, watching what it does; when it acted (an action event, a signal,
 * a throw) its span is made afterwards with its real start and end and the events it recorded. A guard that did
 * nothing costs no span; its time stays inside the iteration's span.
 */
export function watchedGuardStage(
  tracer: Tracer,
  guards: GuardWatch,
  info: StageInfo & { runId: string },
  body: () => StageReturn,
): StageReturn {
  const parent = context.active();
  const startTime = preciseNow();
  const watched = guards.begin(info.runId, info.name);
  let returned: StageReturn;
  try {
    returned = body();
  } catch (error) {
    endGuard(tracer, guards, info, parent, startTime, watched, undefined, true, error);
    throw error;
  }
  if (!isPromiseLike(returned)) {
    endGuard(tracer, guards, info, parent, startTime, watched, returned, false);
    return returned;
  }
  // Module-level ending, no closures but these two: a guard that did nothing costs little more than its own work.
  return Promise.resolve(returned).then(
    (settled) => {
      endGuard(tracer, guards, info, parent, startTime, watched, settled, false);
      return settled;
    },
    (error: unknown) => {
      endGuard(tracer, guards, info, parent, startTime, watched, undefined, true, error);
      throw error;
    },
  );
}

/** A watched guard ended: its span now, with its real start and end, if it acted (an action event, a signal, a throw). */
function endGuard(
  tracer: Tracer,
  guards: GuardWatch,
  info: StageInfo & { runId: string },
  parent: Context,
  startTime: number,
  watched: WatchedGuard,
  returned: StageReturn | undefined,
  failed: boolean,
  error?: unknown,
): void {
  guards.end(info.runId, info.name);
  const signal = isSignal(returned) ? returned : undefined;
  if (!watched.acted && signal === undefined && !failed) return;
  const attributes: Attributes = {
    [StageloopAttributes.stageName]: info.name,
    [StageloopAttributes.zone]: info.zone,
    [StageloopAttributes.iteration]: info.iteration,
  };
  if (signal !== undefined) {
    attributes[StageloopAttributes.signal] = signal.type;
    attributes[StageloopAttributes.signalReason] = signal.reason;
    attributes[StageloopAttributes.signalKind] = signal.kind;
  }
  const span = tracer.startSpan(SpanNames.stage(info.name), { kind: SpanKind.INTERNAL, attributes, startTime }, parent);
  for (const event of watched.events) span.addEvent(event.name, event.attributes, event.at);
  if (failed) recordFailure(span, error);
  span.end(preciseNow());
}

/** `step {id}` spans of a plan run, opened on step_started and ended on step_finished. */
export class StepSpans {
  private readonly open = new Map<string, Span>();

  constructor(
    private readonly tracer: Tracer,
    private readonly roots: ReadonlyMap<string, Context>,
  ) {}

  onEvent(event: { type: string; runId: string; data: unknown }): void {
    if (event.type !== 'step_started' && event.type !== 'step_finished') return;
    const data = event.data as { id?: unknown; dependsOn?: unknown; outcome?: unknown; attempt?: unknown };
    if (typeof data.id !== 'string') return;
    const key = `${event.runId}\u0000${data.id}`;
    const running = this.open.get(key);
    if (running !== undefined && typeof data.outcome === 'string')
      running.setAttribute(StageloopAttributes.stepOutcome, data.outcome);
    running?.end();
    this.open.delete(key);
    if (event.type === 'step_finished') return;
    const attributes: Attributes = { [StageloopAttributes.stepId]: data.id };
    if (Array.isArray(data.dependsOn))
      attributes[StageloopAttributes.stepDependsOn] = data.dependsOn.filter((id) => typeof id === 'string');
    const parent = this.roots.get(event.runId) ?? context.active();
    this.open.set(key, this.tracer.startSpan(SpanNames.step(data.id), { kind: SpanKind.INTERNAL, attributes }, parent));
  }
}
