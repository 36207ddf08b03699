// perStep(stage): the same stage, run for each running plan step. One step at a time it runs on the run's state as
// before; with steps side by side it runs once per step, concurrently, each on a view of the state whose
// conversation, turn and stage slots are that step's own (kept in the plan slot between iterations). Reads and
// writes what the wrapped stage does; returns its signal (an abort of any step first, the pauses of all steps as one).
import { inBranch } from '../../src/engine/run-scope.js';
import { runTracer } from '../../src/engine/run-tracer.js';
import { definePipeline, type Pipeline } from '../../src/engine/pipeline.js';
import { abortRun, interruptRun, type Signal } from '../../src/engine/signal.js';
import type { Deps, Stage, StageContext, StageReturn } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { PlanSlot, PlanStep, StepBranch } from './plan-slot.js';
import { stepTools } from './plan-tools.js';
import type { TurnLimit } from '../guards/turn-limit-slot.js';

export interface PerStepOptions {
  /** Offer the `replan` tool, through which the model asks for a new plan (default true). */
  replanTool?: boolean;
}

/** Slots that are always a step's own, even when the run's state has one. */
const stepSlots = ['think', 'act', 'observe', 'evaluate', 'loopGuard'] as const;
/** What a step writes for the whole run (the answer, a model failure): copied back to the run's state. */
const runWide = new Set(['answer', 'partial', 'modelFailure', 'stop']);
const core = new Set(['plan', 'messages', 'turn', 'nextTurn']);
const wrapped = new WeakSet<Stage>();

export function perStep(stage: Stage, options: PerStepOptions = {}): Stage {
  if (wrapped.has(stage)) return stage;
  const replanTool = options.replanTool ?? true;
  const step: Stage = {
    name: stage.name,
    needs: stage.needs,
    execute(state, ctx) {
      const plan = state.plan;
      if (plan === undefined) return stage.execute(state, ctx);
      if (!(plan.maxParallel > 1)) {
        const current = plan.steps[plan.current];
        if (current?.status !== 'in_progress') return stage.execute(state, ctx);
        const limit = state.nextTurn.limit;
        const returned = inBranch({ step: current.id, parallel: false }, () =>
          stage.execute(state, stepContext(ctx, state, current, replanTool)),
        );
        if (limit === undefined) return returned;
        return Promise.resolve(returned).then((signal) => signal ?? limitReached(state, current, limit));
      }
      return plan.running.length === 0 ? undefined : runSideBySide(stage, state, ctx, plan, replanTool);
    },
  };
  wrapped.add(step);
  return step;
}

/**
 * The pipeline with every iteration stage but replan run per plan step, so stages added around the built-in ones
 * (guards: budget, loop guard, injection guard) see each step's own turn. Stages already wrapped stay as they are.
 */
export function perStepPipeline(pipeline: Pipeline, options: PerStepOptions = {}): Pipeline {
  return definePipeline({
    name: pipeline.name,
    setup: pipeline.setup,
    iteration: pipeline.iteration.map((stage) => (stage.name === 'replan' ? stage : perStep(stage, options))),
    finalize: pipeline.finalize,
    maxIterations: pipeline.maxIterations,
  });
}

async function runSideBySide(
  stage: Stage,
  state: RunState,
  ctx: StageContext,
  plan: PlanSlot,
  replanTool: boolean,
): Promise<Signal | void> {
  const tracer = runTracer(ctx.deps.tracer);
  const order = [...plan.running];
  const [resultsBefore, requestsBefore] = [plan.results.length, (plan.replanRequests ??= []).length];
  const work = order.map((id) => {
    const index = plan.steps.findIndex((candidate) => candidate.id === id);
    const branch = plan.branches[id]!;
    const view = branchView(state, plan, index, branch);
    const step = plan.steps[index]!;
    const limit = view.nextTurn.limit;
    const context = stepContext(ctx, view, step, replanTool, order.length < 2 ? '' : callIdSuffix(step));
    const run = (): StageReturn =>
      Promise.resolve(stage.execute(view, context)).then(
        (signal) => signal ?? (limit === undefined ? undefined : limitReached(view, step, limit)),
      );
    const traced = (): StageReturn =>
      tracer === undefined
        ? run()
        : tracer.stage(
            { name: `${stage.name}-${spanSafe(id)}`, zone: ctx.zone, iteration: ctx.iteration, runId: state.runId },
            run,
          );
    return { branch, view, outcome: Promise.resolve(inBranch({ step: id, parallel: true }, traced)) };
  });
  // Every step's call settles before the stage ends: none is left running behind the run's back.
  const settled = await Promise.allSettled(work.map((entry) => entry.outcome));
  work.forEach((entry) => keep(state, entry.view, entry.branch));
  // Steps finish in whatever order their calls return; the state records them in step order, so a replay (whose
  // calls return at once) and a resume reach the very same state.
  inStepOrder(plan.results, resultsBefore, order);
  inStepOrder(plan.replanRequests, requestsBefore, order);
  const failure = settled.find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) throw (failure as PromiseRejectedResult).reason;
  const signals = settled
    .map((outcome) => (outcome as PromiseFulfilledResult<Signal | void>).value)
    .filter((signal): signal is Signal => signal !== undefined);
  return signals.find((signal) => signal.type === 'abort_run') ?? oneInterrupt(signals) ?? signals[0];
}

/** Steps that each wait for a person pause the run once, waiting for all of them: one decision round, not one per step. */
function oneInterrupt(signals: readonly Signal[]): Signal | undefined {
  const interrupts = signals.filter((signal) => signal.type === 'interrupt_run');
  if (interrupts.length < 2) return interrupts[0];
  const pending = interrupts.flatMap((signal) => signal.pending ?? []);
  return interruptRun(
    `waiting for ${pending.length} decisions of steps side by side: ${interrupts.map((signal) => signal.reason).join('; ')}`,
    pending,
    interrupts[0]!.kind,
  );
}

/**
 * A step that ended in the tool-less turn a spent limit forced (think consumed nextTurn.limit) stops the run under
 * that limit's kind, as a final answer does without a plan: a budget stops every step, not only the current one.
 */
function limitReached(state: RunState, step: PlanStep, limit: TurnLimit): Signal | undefined {
  if (state.nextTurn.limit !== undefined || step.status === 'in_progress') return undefined;
  return abortRun(`${limit.reason}; step ${step.id} ended in its final tool-less turn`, limit.kind);
}

function inStepOrder(list: Array<{ id: string }>, from: number, order: readonly string[]): void {
  if (list.length - from < 2) return;
  const added = list.splice(from).sort((left, right) => order.indexOf(left.id) - order.indexOf(right.id));
  list.push(...added);
}

/** The state as one running step sees it: its own conversation, turn and slots; everything else is the run's. */
export function branchView(state: RunState, plan: PlanSlot, index: number, branch: StepBranch): RunState {
  const view = Object.create(state) as Record<string, unknown>;
  const planView = Object.create(plan) as PlanSlot;
  planView.current = index;
  view.plan = planView;
  view.messages = branch.messages;
  view.turn = branch.turn;
  view.nextTurn = branch.nextTurn;
  for (const slot of stepSlots) view[slot] = branch.slots[slot];
  for (const [slot, value] of Object.entries(branch.slots)) view[slot] = value;
  return view as unknown as RunState;
}

/** Stores what the step wrote back into its branch (plain JSON in the plan slot), and run-wide writes into the run. */
function keep(state: RunState, view: RunState, branch: StepBranch): void {
  const fields = view as unknown as Record<string, unknown>;
  branch.messages = view.messages;
  branch.turn = view.turn;
  branch.nextTurn = view.nextTurn;
  for (const key of Object.keys(fields)) {
    if (core.has(key)) continue;
    const value = fields[key];
    if (runWide.has(key)) {
      if (value !== undefined) (state as unknown as Record<string, unknown>)[key] = value;
    } else if (value === undefined) delete branch.slots[key];
    else branch.slots[key] = value;
  }
}

/**
 * Steps side by side share one pause, whose decisions are given by call id, and a model server that numbers calls per
 * reply gives every step a "call_1": the calls of a step running beside others carry its id (`call_1_b`).
 */
function callIdSuffix(step: PlanStep): string {
  return `_${step.id.replace(/[^A-Za-z0-9_-]+/g, '-')}`;
}

/** The step's ports: its tools (the bound tool first, the replan tool) and, beside other steps, its call-id suffix. */
function stepContext(
  ctx: StageContext,
  state: RunState,
  step: PlanStep,
  replanTool: boolean,
  callIdSuffix = '',
): StageContext {
  const tools = stepTools(ctx.deps.tools, state, step, replanTool);
  if (tools === ctx.deps.tools && callIdSuffix === '') return ctx;
  const deps: Deps = { ...ctx.deps };
  if (tools !== undefined) deps.tools = tools;
  if (callIdSuffix !== '') deps.callIdSuffix = callIdSuffix;
  return {
    get signal() {
      return ctx.signal;
    },
    deps,
    zone: ctx.zone,
    iteration: ctx.iteration,
    stage: ctx.stage,
    emit: ctx.emit,
    setDeadline: ctx.setDeadline,
  };
}

function spanSafe(id: string): string {
  return (
    id
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'step'
  );
}
