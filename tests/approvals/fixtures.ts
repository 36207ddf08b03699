// Shared set-up of the approval tests: a calculator whose executions are logged (the side effect approval guards).
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/react.js';
import type { ApprovalOptions } from '../../stages/approval/approval.js';
import { withApproval } from '../../stages/pipeline-policies.js';
import { defineTool, type NeedsApproval } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';

export function loggedCalculator(log: string[], needsApproval?: NeedsApproval<{ expression: string }>) {
  const calculator = defineTool({
    name: 'calculator',
    description: 'Adds two numbers written like "2 + 3".',
    parameters: z.object({
      expression: z.string().regex(/^\s*\d+\s*\+\s*\d+\s*$/, 'write a sum of two whole numbers like "2 + 3"'),
    }),
    ...(needsApproval === undefined ? {} : { needsApproval }),
    execute({ expression }) {
      log.push(expression);
      const [left, right] = expression.split('+').map(Number);
      return String((left ?? 0) + (right ?? 0));
    },
  });
  return new ToolRegistry([calculator]);
}

export function approvalPipeline(registry: ToolRegistry, options: Omit<ApprovalOptions, 'registry'> = {}) {
  return withApproval(reactPipeline(), { registry, ...options });
}

export const sum = (expression: string, id = 'call_1') => ({
  id,
  name: 'calculator',
  arguments: JSON.stringify({ expression }),
});
