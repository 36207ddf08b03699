// Turns a planner's reply into plan steps: the graph shape, the old list of { description, status } and a plain
// list of strings (a chain), then checks ids, dependencies, cycles and tool names. A step may hold its own `steps` (a
// sub-plan, read by the same rules, at most maxPlanDepth deep). Not a stage: plan and replan use it.
import { maxPlanDepth, type PlanStep } from './plan-slot.js';

export type Parsed<Value> = { ok: true; value: Value } | { ok: false; problem: string };

export interface StepRules {
  /** Most steps the plan may have. */
  maxSteps: number;
  /** The tools that exist; a step bound to another name is refused (a different case is corrected). */
  tools: readonly string[];
  /** Steps already in the plan that new steps may depend on (a replan keeps them). */
  kept?: readonly PlanStep[];
  /** Ids for steps that have none: `${idPrefix}1`, `${idPrefix}2`... (default "s"). */
  idPrefix?: string;
  /** What the first step of a chain depends on (a replan's new chain waits for the steps still running). */
  chainAfter?: readonly string[];
  /** The step whose sub-plan the list is (its steps' ids are qualified by it: `b.x`); absent for the run's plan. */
  parent?: string;
  /** The list's plan depth: 1 for the run's plan (default), 2 for a step's sub-plan... up to maxPlanDepth. */
  depth?: number;
  /** Ids already used anywhere in the plan (a new step may not take one). */
  taken?: readonly string[];
}

export interface ParsedPlan {
  goal?: string;
  reasoning?: string;
  steps: PlanStep[];
}

/** The plan in a parsed JSON value: `{ goal, reasoning, steps }` (or `subtasks`), or the list of steps itself. */
export function planFromJson(value: unknown, rules: StepRules): Parsed<ParsedPlan> {
  const object = isObject(value) ? value : undefined;
  const list = Array.isArray(value) ? value : (object?.steps ?? object?.subtasks ?? object?.plan);
  if (!Array.isArray(list))
    return { ok: false, problem: 'the reply has no "steps" list: give {"goal": "...", "steps": [...]}' };
  const steps = stepsFromJson(list, rules);
  if (!steps.ok) return steps;
  const plan: ParsedPlan = { steps: steps.value };
  const goal = textOf(object?.goal);
  const reasoning = textOf(object?.reasoning);
  if (goal !== undefined) plan.goal = goal;
  if (reasoning !== undefined) plan.reasoning = reasoning;
  return { ok: true, value: plan };
}

/**
 * Steps from a list of strings or objects, checked against each other, the kept steps and the tools. A step with its
 * own `steps` (or `subtasks`) is followed by its sub-steps, depth first: the list is flat, each sub-step naming its
 * `parent`.
 */
export function stepsFromJson(list: readonly unknown[], rules: StepRules): Parsed<PlanStep[]> {
  if (list.length === 0) return { ok: false, problem: 'the plan has no steps: give at least one' };
  const where = rules.parent === undefined ? 'the plan' : `the sub-plan of step "${rules.parent}"`;
  if (list.length > rules.maxSteps)
    return { ok: false, problem: `${where} has ${list.length} steps: use at most ${rules.maxSteps}` };
  const depth = rules.depth ?? 1;
  const qualify = (id: string) =>
    rules.parent === undefined || id.startsWith(`${rules.parent}.`) ? id : `${rules.parent}.${id}`;
  const prefix = rules.idPrefix ?? (rules.parent === undefined ? 's' : `${rules.parent}.`);
  // Without a single dependsOn anywhere, the list is a chain: each step needs the one before (the old list shape).
  const chain = !list.some((item) => isObject(item) && dependencyField(item) !== undefined);
  const level: PlanStep[] = [];
  const subSteps = new Map<PlanStep, unknown[]>();
  for (let index = 0; index < list.length; index++) {
    const item = list[index];
    const fields = isObject(item) ? item : {};
    const description =
      typeof item === 'string' ? item.trim() : textOf(fields.description ?? fields.task ?? fields.step ?? fields.title);
    const label = `step ${index + 1}${rules.parent === undefined ? '' : ` of ${where}`}`;
    if (description === undefined || description === '')
      return { ok: false, problem: `${label} has no description: give each step a "description" text` };
    const raw = idOf(fields.id);
    const id = raw === undefined ? `${prefix}${index + 1}` : qualify(raw);
    const previous = level[index - 1];
    const listed = chain ? [] : listOfIds(dependencyField(fields));
    if (listed === undefined)
      return { ok: false, problem: `step "${id}" has a "dependsOn" that is not a list of step ids` };
    const dependsOn = chain ? (previous ? [previous.id] : [...(rules.chainAfter ?? [])]) : listed;
    const step: PlanStep = { id, description, dependsOn, status: 'pending', attempts: 0 };
    if (rules.parent !== undefined) step.parent = rules.parent;
    const tool = toolOf(fields, id, rules.tools);
    if (typeof tool === 'object') return tool;
    if (tool !== undefined) step.tool = tool;
    const priority =
      typeof fields.priority === 'number'
        ? fields.priority
        : typeof fields.priority === 'string'
          ? Number(fields.priority)
          : undefined;
    if (priority !== undefined && Number.isFinite(priority)) step.priority = priority;
    const inner = fields.steps ?? fields.subtasks;
    if (Array.isArray(inner) && inner.length > 0) {
      // Deeper plans are refused with a reason the planner reads in its repair turn, not silently flattened.
      if (depth >= maxPlanDepth)
        return {
          ok: false,
          problem: `step "${id}" has its own "steps" at plan depth ${depth + 1}: plans nest at most ${maxPlanDepth} deep (the plan, a step's sub-plan, a sub-step's sub-plan); describe "${id}" as one step without "steps"`,
        };
      subSteps.set(step, inner);
    }
    level.push(step);
  }
  // A sub-step depends on its siblings: the model may write their short ids ("x" for "b.x").
  if (rules.parent !== undefined) {
    const siblings = new Set(level.map((step) => step.id));
    for (const step of level)
      step.dependsOn = step.dependsOn.map((id) => (siblings.has(qualify(id)) && !siblings.has(id) ? qualify(id) : id));
  }
  const problem = graphProblem(level, rules.kept ?? [], where, rules.taken);
  if (problem !== undefined) return { ok: false, problem };
  const steps: PlanStep[] = [];
  for (const step of level) {
    steps.push(step);
    const inner = subSteps.get(step);
    if (inner === undefined) continue;
    const nested = stepsFromJson(inner, {
      maxSteps: rules.maxSteps,
      tools: rules.tools,
      parent: step.id,
      depth: depth + 1,
      taken: [...(rules.taken ?? []), ...steps.map((known) => known.id), ...level.map((known) => known.id)],
    });
    if (!nested.ok) return nested;
    steps.push(...nested.value);
  }
  return { ok: true, value: steps };
}

/** The tool a step is bound to (a name in another case is corrected), or the problem a model can fix. */
function toolOf(
  fields: Record<string, unknown>,
  id: string,
  tools: readonly string[],
): string | undefined | { ok: false; problem: string } {
  const tool = textOf(fields.tool ?? fields.tool_name ?? fields.toolName);
  if (tool === undefined || tool === '' || /^(none|null|n\/a)$/i.test(tool)) return undefined;
  const known = tools.find((name) => name === tool) ?? tools.find((name) => name.toLowerCase() === tool.toLowerCase());
  if (known !== undefined) return known;
  const real = tools.length > 0 ? `the tools are: ${tools.join(', ')}` : 'this run has no tools, so leave "tool" out';
  return { ok: false, problem: `step "${id}" names the tool "${tool}", which does not exist: ${real}` };
}

/** Duplicate ids, dependencies on steps that do not exist, and cycles, named so a model can fix them. */
export function graphProblem(
  steps: readonly PlanStep[],
  kept: readonly PlanStep[] = [],
  where = 'the plan',
  taken: readonly string[] = [],
): string | undefined {
  const known = new Set(kept.map((step) => step.id));
  const used = new Set(taken);
  for (const step of steps) {
    if (known.has(step.id) || used.has(step.id))
      return `the step id "${step.id}" is used twice: give every step its own id`;
    known.add(step.id);
  }
  for (const step of steps) {
    const unknown = step.dependsOn.find((id) => !known.has(id));
    if (unknown !== undefined)
      return `step "${step.id}" depends on "${unknown}", which is not a step of ${where}: depend only on these ids: ${[...known].join(', ')}`;
  }
  const cycle = findCycle(steps);
  if (cycle === undefined) return undefined;
  const names = cycle.length === 1 ? `step ${cycle[0]} depends on itself` : `steps ${joinNames(cycle)} form a cycle`;
  return `${names}: a step can only depend on steps that can finish before it`;
}

/** The ids on one cycle among the steps (kept steps have no new dependencies, so they close none). */
function findCycle(steps: readonly PlanStep[]): string[] | undefined {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const mark = state.get(id);
    if (mark === 'done' || !byId.has(id)) return undefined;
    if (mark === 'visiting') return path.slice(path.indexOf(id));
    state.set(id, 'visiting');
    path.push(id);
    for (const dependency of byId.get(id)!.dependsOn) {
      const found = visit(dependency);
      if (found !== undefined) return found;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const step of steps) {
    const found = visit(step.id);
    if (found !== undefined) return found;
  }
  return undefined;
}

function joinNames(ids: readonly string[]): string {
  return ids.length <= 2 ? ids.join(' and ') : `${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]}`;
}

function dependencyField(fields: Record<string, unknown>): unknown {
  return fields.dependsOn ?? fields.depends_on ?? fields.dependencies ?? fields.deps;
}

function listOfIds(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  const ids = items.map(idOf);
  return ids.every((id) => id !== undefined) ? [...new Set(ids as string[])] : undefined;
}

function idOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return undefined;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value.trim() : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
