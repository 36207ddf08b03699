import { describe, expect, it } from 'vitest';
import { plannerInstructions, replannerInstructions } from '../../../stages/plan/plan-prompts.js';

describe("the plan family's texts", () => {
  it('the planner is told the step count, the tools, and the JSON to answer with', () => {
    const withTools = plannerInstructions(4, ['calculator', 'web_search']);
    expect(withTools).toContain('Use between 1 and 4 steps.');
    expect(withTools).toContain('The executor can use these tools: calculator, web_search.');
    expect(withTools).toContain('{"goal":"...","reasoning":"...","steps":[');
    expect(plannerInstructions(2, [])).toContain('The executor has no tools: leave "tool" out.');
    expect(replannerInstructions).toMatch(/^You are the replanner\./);
    expect(replannerInstructions).toContain('"need_replan"');
  });
});
