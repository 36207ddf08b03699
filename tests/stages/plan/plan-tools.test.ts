import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { replanRequested, replanToolName, stepTools, takeReplanRequest } from '../../../stages/plan/plan-tools.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { makeState } from '../../support/helpers.js';
import { planSlotFor } from '../../support/plan-slot.js';

const echo = (name: string) =>
  defineTool({
    name,
    description: `${name} tool`,
    parameters: z.strictObject({ text: z.string() }),
    execute: ({ text }) => `${name}: ${text}`,
  });
const registry = () => new ToolRegistry([echo('search'), echo('calculator')]);

function planned() {
  const state = makeState({
    plan: planSlotFor({
      steps: [
        { description: 'look it up', status: 'in_progress' },
        { description: 'sum it', status: 'pending' },
      ],
      current: 0,
    }),
  });
  return { state, step: state.plan!.steps[0]! };
}

describe('stepTools', () => {
  it("hands over the run's own tool box when the step changes nothing", () => {
    const tools = registry();
    const { state, step } = planned();
    expect(stepTools(tools, state, step, false)).toBe(tools);
    expect(stepTools(undefined, state, step, true)).toBeUndefined();
  });

  it('puts the bound tool first and adds the replan tool last', () => {
    const { state, step } = planned();
    const box = stepTools(registry(), state, { ...step, tool: 'calculator' }, true)!;
    expect(box.definitions().map((tool) => tool.name)).toEqual(['calculator', 'search', replanToolName]);
  });

  it('answers a replan call itself, in call order with the real results, and records the reason once', async () => {
    const { state, step } = planned();
    const box = stepTools(registry(), state, step, true)!;
    const results = await box.executeAll([
      { id: 'a', name: 'search', arguments: '{"text":"x"}' },
      { id: 'b', name: replanToolName, arguments: '{"reason":" the data is missing "}' },
    ]);
    expect(results.map((result) => result.ok && result.content)).toEqual([
      'search: x',
      'A new plan was requested; this step ends here and the replanner decides what follows.',
    ]);
    expect(replanRequested(state, 's1')).toBe('the data is missing');
    expect(replanRequested(state, 's2')).toBeUndefined();
    expect(takeReplanRequest(state)).toBe('s1: the data is missing');
    expect(takeReplanRequest(state)).toBeUndefined();
  });

  it('a replan call without a readable reason still ends the step, saying none was given', async () => {
    const { state, step } = planned();
    await stepTools(registry(), state, step, true)!.executeAll([{ id: 'b', name: replanToolName, arguments: '{}' }]);
    expect(replanRequested(state, 's1')).toBe('no reason given');
  });
});
