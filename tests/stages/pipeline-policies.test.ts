// The pipeline policies: where withApproval and withTaintPolicy put their stages, and what they refuse. (The runs
// they make are tested in tests/stages/approval, tests/approvals and tests/stages/guards/injection/taint.test.ts.)
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { reactPipeline } from '../../pipelines/react.js';
import { definePipeline, stageNames } from '../../src/engine/pipeline.js';
import { perStep } from '../../stages/plan/plan-branch.js';
import { withApproval, withTaintPolicy } from '../../stages/pipeline-policies.js';

const noTools = { get: () => undefined };
const withoutAct = definePipeline({
  name: 'talk',
  setup: [],
  iteration: [{ name: 'think', execute: () => undefined }],
  finalize: [],
  maxIterations: 1,
});

describe('withApproval', () => {
  it('puts the approval stage just before act', () => {
    const names = stageNames(withApproval(reactPipeline({ guards: false })));
    expect(names.indexOf('approval')).toBe(names.indexOf('act') - 1);
  });

  it('in a plan pipeline the approval stage runs per plan step (perStep leaves a wrapped stage as it is)', () => {
    const planned = withApproval(planExecuteReplanPipeline({ guards: false })).iteration.find(
      (each) => each.name === 'approval',
    )!;
    const plain = withApproval(reactPipeline({ guards: false })).iteration.find((each) => each.name === 'approval')!;
    expect(perStep(planned)).toBe(planned);
    expect(perStep(plain)).not.toBe(plain);
  });

  it('refuses a pipeline without act', () => {
    expect(() => withApproval(withoutAct)).toThrow(expect.objectContaining({ code: 'config' }));
  });
});

describe('withTaintPolicy', () => {
  it('refuse: the gate before act, the tracker after it', () => {
    const names = stageNames(withTaintPolicy(reactPipeline({ guards: false }), 'refuse', noTools));
    expect(names.slice(names.indexOf('act') - 1, names.indexOf('act') + 2)).toEqual(['taint-gate', 'act', 'taint']);
  });

  it('ask: an approval stage before act (one, replacing the one there)', () => {
    const asked = stageNames(withTaintPolicy(withApproval(reactPipeline({ guards: false })), 'ask', noTools));
    expect(asked.filter((name) => name === 'approval')).toHaveLength(1);
    expect(asked.indexOf('approval')).toBe(asked.indexOf('act') - 1);
  });

  it('off: the same pipeline; an unknown policy or a pipeline without act is refused', () => {
    const pipeline = reactPipeline({ guards: false });
    expect(withTaintPolicy(pipeline, 'off', noTools)).toBe(pipeline);
    expect(() => withTaintPolicy(pipeline, 'sometimes' as never, noTools)).toThrow(
      expect.objectContaining({ code: 'config' }),
    );
    expect(() => withTaintPolicy(withoutAct, 'refuse', noTools)).toThrow(expect.objectContaining({ code: 'config' }));
  });
});
