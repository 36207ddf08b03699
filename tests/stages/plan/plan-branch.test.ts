// perStep(): the wrapped stage on the run's state one step at a time, or once per running step, side by side, each on
// a view with its own conversation, turn and slots; what a step writes run-wide reaches the run; results are kept in
// step order whatever order the steps end in. branchView() and perStepPipeline() as they are used.
import { describe, expect, it } from 'vitest';
import { definePipeline } from '../../../src/engine/pipeline.js';
import type { Stage } from '../../../src/engine/stage.js';
import type { RunState } from '../../../src/engine/state.js';
import { branchView, perStep, perStepPipeline } from '../../../stages/plan/plan-branch.js';
import type { PlanSlot, StepBranch } from '../../../stages/plan/plan-slot.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { planSlotFor } from '../../support/plan-slot.js';

const branch = (content: string): StepBranch => ({
  messages: [{ role: 'user', content }],
  turn: { toolCalls: [], results: [] },
  nextTurn: { notes: [], withoutTools: false },
  slots: {},
});

/** Two independent steps running side by side, each with its branch. */
function sideBySide(): { state: RunState; plan: PlanSlot } {
  const plan = planSlotFor({
    steps: [
      { description: 'look up a', status: 'in_progress' },
      { description: 'look up b', status: 'in_progress' },
    ],
    current: 0,
    maxParallel: 2,
  });
  for (const step of plan.steps) step.dependsOn = [];
  plan.running = ['s1', 's2'];
  plan.branches = { s1: branch('brief for a'), s2: branch('brief for b') };
  return { state: makeState({ plan, messages: [{ role: 'user', content: "the run's conversation" }] }), plan };
}

describe('perStep', () => {
  it("without a plan, or one step at a time, the stage runs on the run's own state", async () => {
    const seen: RunState[] = [];
    const probe = perStep({ name: 'think', execute: (state) => void seen.push(state) });
    const bare = makeState();
    await probe.execute(bare, makeCtx());
    const oneAtATime = makeState({
      plan: planSlotFor({ steps: [{ description: 'a', status: 'in_progress' }], current: 0 }),
    });
    await probe.execute(oneAtATime, makeCtx());
    expect(seen[0]).toBe(bare);
    expect(seen[1]).toBe(oneAtATime);
  });

  it('wraps a stage once, keeping its name', () => {
    const stage: Stage = { name: 'observe', execute: () => undefined };
    const wrapped = perStep(stage);
    expect(wrapped.name).toBe('observe');
    expect(perStep(wrapped)).toBe(wrapped);
  });

  it('side by side: each step sees its own conversation; its slots stay in its branch, run-wide writes reach the run', async () => {
    const { state, plan } = sideBySide();
    const briefs: string[] = [];
    const probe = perStep({
      name: 'think',
      execute(view) {
        briefs.push(String(view.messages[0]!.content));
        view.messages = [
          ...view.messages,
          { role: 'assistant', content: `worked on ${view.plan!.steps[view.plan!.current]!.id}` },
        ];
        (view as unknown as Record<string, unknown>).think = { calls: 1 };
        if (view.plan!.current === 1) view.answer = 'from b';
      },
    });
    await probe.execute(state, makeCtx());
    expect(briefs).toEqual(['brief for a', 'brief for b']);
    expect(plan.branches.s1!.messages.at(-1)!.content).toBe('worked on s1');
    expect(plan.branches.s2!.slots).toEqual({ think: { calls: 1 } });
    expect(state.messages).toEqual([{ role: 'user', content: "the run's conversation" }]);
    expect((state as unknown as Record<string, unknown>).think).toBeUndefined();
    expect(state.answer).toBe('from b');
  });

  it('gives each step running beside others its call-id suffix (the step id, made safe), and none to a step alone', async () => {
    const { state, plan } = sideBySide();
    plan.steps[1]!.id = 'step b';
    plan.running = ['s1', 'step b'];
    plan.branches = { s1: branch('brief for a'), 'step b': branch('brief for b') };
    const suffixes: Array<string | undefined> = [];
    const probe = perStep({ name: 'think', execute: (_view, ctx) => void suffixes.push(ctx.deps.callIdSuffix) });
    await probe.execute(state, makeCtx());
    expect(suffixes).toEqual(['_s1', '_step-b']);
    plan.running = ['s1'];
    await probe.execute(state, makeCtx());
    expect(suffixes.at(-1)).toBeUndefined();
  });

  it('keeps results in step order though the second step ends first, and waits for every step before a failure', async () => {
    const { state, plan } = sideBySide();
    let releaseFirst: () => void = () => undefined;
    const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
    const probe = perStep({
      name: 'observe',
      async execute(view) {
        const index = view.plan!.current;
        if (index === 0) await firstMayEnd;
        view.plan!.results.push({
          step: index + 1,
          id: `s${index + 1}`,
          description: 'd',
          outcome: 'completed',
          output: `out ${index + 1}`,
        });
        if (index === 1) releaseFirst();
      },
    });
    await probe.execute(state, makeCtx());
    expect(plan.results.map((result) => result.id)).toEqual(['s1', 's2']);

    const failing = sideBySide();
    const ended: number[] = [];
    const thrower = perStep({
      name: 'act',
      async execute(view) {
        if (view.plan!.current === 0) throw new Error('step a broke');
        await Promise.resolve();
        ended.push(view.plan!.current);
      },
    });
    await expect(thrower.execute(failing.state, makeCtx())).rejects.toThrow('step a broke');
    expect(ended).toEqual([1]);
  });
});

describe('branchView', () => {
  it("reads the branch's conversation and the step as current; everything else is the run's", () => {
    const { state, plan } = sideBySide();
    const view = branchView(state, plan, 1, plan.branches.s2!);
    expect(view.messages).toBe(plan.branches.s2!.messages);
    expect(view.plan!.current).toBe(1);
    expect(plan.current).toBe(0);
    expect(view.input).toBe(state.input);
  });
});

describe('perStepPipeline', () => {
  it('wraps every iteration stage but replan', () => {
    const replan: Stage = { name: 'replan', execute: () => undefined };
    const think: Stage = { name: 'think', execute: () => undefined };
    const pipeline = perStepPipeline(definePipeline({ name: 'p', iteration: [think, replan], maxIterations: 3 }));
    expect(pipeline.iteration[0]).not.toBe(think);
    expect(pipeline.iteration[0]!.name).toBe('think');
    expect(pipeline.iteration[1]).toBe(replan);
  });
});
