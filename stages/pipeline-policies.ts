// Pipeline policies that put stages of several families together (a composition above the families, as the barrels
// are): approval before act, run per plan step in a plan pipeline; the taint policy with its tracker, gate or approval.
import { insertAfter, insertBefore, replaceStage, stageNames, type Pipeline } from '../src/engine/pipeline.js';
import { approval, type ApprovalOptions } from './approval/approval.js';
import {
  taintGate,
  taintPolicies,
  taintReason,
  taintTracker,
  type Lookup,
  type TaintPolicy,
} from './guards/injection/taint.js';
import { perStepPipeline } from './plan/plan-branch.js';
import { StageloopError } from '../src/common/stageloop-error.js';

/** The pipeline with the approval stage just before act (after any loop guard, whose refusals need no approval). */
export function withApproval(pipeline: Pipeline, options: ApprovalOptions = {}): Pipeline {
  if (!stageNames(pipeline).includes('act'))
    throw new StageloopError(
      'config',
      `approval needs a pipeline with an "act" stage; "${pipeline.name}" has: ${stageNames(pipeline).join(', ')}`,
    );
  const approved = insertBefore(pipeline, 'act', approval(options));
  // In a plan pipeline the approval stage runs per plan step, so it sees each step's own calls when steps run side by side.
  return approved.setup.some((stage) => stage.name === 'plan') ? perStepPipeline(approved) : approved;
}

/**
 * The pipeline with the taint policy in place: the tracker after act; `refuse` adds the gate before act; `ask` puts
 * the policy's reason into the approval stage (the one given, or a new one before act), so a write call after untrusted
 * content waits for a person like any approval (exit 4 without a terminal).
 */
export function withTaintPolicy(
  pipeline: Pipeline,
  policy: TaintPolicy,
  registry: Lookup,
  approvalOptions: ApprovalOptions = {},
): Pipeline {
  if (!taintPolicies.includes(policy))
    throw new StageloopError('config', `--taint-policy must be ask, refuse or off, got ${JSON.stringify(policy)}`);
  const names = stageNames(pipeline);
  if (!names.includes('act'))
    throw new StageloopError(
      'config',
      `the taint policy needs a pipeline with an "act" stage; "${pipeline.name}" has: ${names.join(', ')}`,
    );
  if (policy === 'off') return pipeline;
  const tracked = insertAfter(pipeline, 'act', taintTracker(registry));
  if (policy === 'refuse') return insertBefore(tracked, 'act', taintGate(registry));
  const asking = approval({
    ...approvalOptions,
    registry,
    reasons: [...(approvalOptions.reasons ?? []), taintReason(registry, 'ask')],
  });
  return names.includes('approval') ? replaceStage(tracked, 'approval', asking) : insertBefore(tracked, 'act', asking);
}
