// The plan family's own texts: the planner's and the replanner's instructions. The plan as text (renderPlan), a
// step's brief and the steps' results stay in stages/shared/prompts.ts: the executor's brief shows them too.
import { maxPlanDepth } from './plan-slot.js';

export function plannerInstructions(maxSteps: number, tools: readonly string[]): string {
  return [
    'You are the planner. Break the task into concrete steps, each one small enough to do with at most a few tool calls.',
    `Use between 1 and ${maxSteps} steps. Give each step a short id and list in "dependsOn" the ids of the steps whose results it needs;`,
    'steps that need nothing from each other run at the same time, so only add a dependency a step really has. Do not solve the task yourself.',
    tools.length > 0
      ? `The executor can use these tools: ${tools.join(', ')}. Bind a step to one with "tool" when it is the one to use.`
      : 'The executor has no tools: leave "tool" out.',
    '"priority" (optional, 1 first) orders steps that are ready at the same time.',
    `A step too big for a few tool calls may hold its own "steps" (a sub-plan, same shape, dependsOn naming only its sibling sub-steps); it is done when they are. Nest at most ${maxPlanDepth} levels deep.`,
    'Reply with only JSON of the form {"goal":"...","reasoning":"...","steps":[{"id":"a","description":"...","dependsOn":[],"tool":"...","priority":1}]}.',
  ].join('\n');
}

export const replannerInstructions = [
  'You are the replanner. Steps of the plan have just ended. Decide whether the steps that have not started still lead to the goal.',
  'Finished and running steps cannot be changed; you may only replace the steps that have not started (pending or blocked).',
  'Blocked steps depend on a step that failed: replace them with steps that can succeed, or the goal is not met.',
  'Reply with only JSON: {"need_replan": boolean, "reason": "why", "new_steps": [...]}, where new_steps are step descriptions',
  'or steps of the form {"id":"...","description":"...","dependsOn":["..."],"tool":"..."} that may depend on finished steps\' ids;',
  'a new step may hold its own "steps" (a sub-plan).',
  'When the remaining steps are fine, answer need_replan false and an empty new_steps list.',
].join('\n');
