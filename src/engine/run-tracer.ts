// Picks a run's tracer and keeps its faults out of the run: a tracer that throws never changes how a run ends.
import { isPromiseLike } from '../common/promise-like.js';
import type { RunOutcomeSummary, RunTraceInfo, RunTracer, StageInfo, StageReturn } from './stage.js';

/** Calls straight through: the tracer of a run nobody traces, so traced and untraced runs take one path. */
export const identityTracer: RunTracer = {
  run: (_info, body) => body(),
  iteration: (_info, body) => body(),
  stage: (_info, body) => body(),
};

/** The tracer a run uses, or undefined when it says at the start that it records nothing. */
export function runTracer(tracer: RunTracer | undefined): RunTracer | undefined {
  if (tracer === undefined) return undefined;
  let enabled = true;
  try {
    enabled = tracer.enabled?.() !== false;
  } catch {
    // One that throws here is used, so no trace is lost silently; its later faults are contained below.
  }
  return enabled ? new GuardedTracer(tracer) : undefined;
}

/**
 * Calls the tracer's wrappers but owns the body: whatever the tracer throws or returns instead, the run gets the
 * body's own outcome, and the body runs exactly once. The runner passes live info objects it keeps changing; the
 * tracer gets copies it may keep.
 */
class GuardedTracer implements RunTracer {
  constructor(private readonly tracer: RunTracer) {}

  run<Result extends RunOutcomeSummary>(info: RunTraceInfo, body: () => Promise<Result>): Promise<Result> {
    const copy: RunTraceInfo = { runId: info.runId, pipeline: info.pipeline };
    if (info.linkTo !== undefined) copy.linkTo = { ...info.linkTo };
    const onRootSpan = info.onRootSpan;
    // The tracer's report is the seam's to keep; a seam that throws on it must not end the run.
    if (onRootSpan !== undefined)
      copy.onRootSpan = (root) => {
        try {
          onRootSpan(root);
        } catch {
          // Only the link of a later resume is lost.
        }
      };
    return guardAsync((wrapped) => this.tracer.run(copy, wrapped), body);
  }

  iteration<Result>(info: { runId: string; iteration: number }, body: () => Promise<Result>): Promise<Result> {
    return guardAsync(
      (wrapped) => this.tracer.iteration({ runId: info.runId, iteration: info.iteration }, wrapped),
      body,
    );
  }

  stage(info: StageInfo & { runId: string }, body: () => StageReturn): StageReturn {
    let called = false;
    let returned: StageReturn = undefined;
    let traced: StageReturn;
    try {
      traced = this.tracer.stage(
        {
          runId: info.runId,
          name: info.name,
          zone: info.zone,
          iteration: info.iteration,
          ...(info.quiet === true && { quiet: true }),
        },
        // Inline, not a named const: tsx (keepNames) would rename a named closure on every stage call.
        (): StageReturn => {
          called = true;
          return (returned = body());
        },
      );
    } catch {
      return called ? returned : body();
    }
    if (!called) return body();
    // Waits for the tracer (its span ends there) but keeps the body's own outcome: a tracer that swapped or
    // rejected the result cannot change the run.
    if (!isPromiseLike(traced)) return returned;
    const own = returned;
    return Promise.resolve(traced).then(
      () => own,
      () => own,
    );
  }
}

function guardAsync<Result>(
  wrap: (wrapped: () => Promise<Result>) => Promise<Result>,
  body: () => Promise<Result>,
): Promise<Result> {
  let own: Promise<Result> | undefined;
  const wrapped = () => (own = body());
  let traced: Promise<Result>;
  try {
    traced = wrap(wrapped);
  } catch {
    return own ?? body();
  }
  // A tracer that has not called the body by the time it settles gets it run then; it never runs twice.
  const ownOutcome = () => own ?? body();
  return Promise.resolve(traced).then(ownOutcome, ownOutcome);
}
