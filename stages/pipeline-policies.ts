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
  return perPlanStep(insertBefore(pipeline, 'act', approval(options)));
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
  if (policy === 'refuse') return perPlanStep(insertBefore(tracked, 'act', taintGate(registry)));
  const asking = approval({
    ...approvalOptions,
    registry,
    reasons: [...(approvalOptions.reasons ?? []), taintReason(registry, 'ask')],
  });
  const asked = names.includes('approval')
    ? replaceStage(tracked, 'approval', asking)
    : insertBefore(tracked, 'act', asking);
  return perPlanStep(asked);
}

/** In a plan pipeline the added stages run per plan step, so steps side by side each see their own calls. */
function perPlanStep(pipeline: Pipeline): Pipeline {
  return pipeline.setup.some((stage) => stage.name === 'plan') ? perStepPipeline(pipeline) : pipeline;
}
