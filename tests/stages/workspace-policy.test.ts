// withWorkspace: the workspace stage after context; with skills, the skills stage after act (per plan step in a plan
// pipeline). A whole offline run loads the skill the task names and reports skill_loaded.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { reactPipeline } from '../../pipelines/react.js';
import { stageNames } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { OfflineModel } from '../../src/model/offline-model.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { skillTools } from '../../src/tools/skills.js';
import { perStep } from '../../stages/plan/plan-branch.js';
import { withWorkspace } from '../../stages/workspace-policy.js';
import { testCalculator } from '../support/stage-tools.js';

const vat = { name: 'vat-rates', description: 'VAT rates.', body: 'Multiply by 1.2.', folder: '/x', files: [] };

describe('withWorkspace', () => {
  it('puts workspace after context, and skills after act only when there are skills', () => {
    const files = [{ path: 'AGENTS.md', text: 'Rules.', origin: 'project' as const }];
    const names = stageNames(withWorkspace(reactPipeline({ guards: false }), { files }));
    expect(names.slice(0, 2)).toEqual(['context', 'workspace']);
    expect(names).not.toContain('skills');
    const withSkills = stageNames(withWorkspace(reactPipeline({ guards: false }), { skills: [vat] }));
    expect(withSkills.indexOf('skills')).toBe(withSkills.indexOf('act') + 1);
  });

  it('in a plan pipeline the skills stage runs per plan step', () => {
    const planned = withWorkspace(planExecuteReplanPipeline({ guards: false }), { skills: [vat] });
    const stage = planned.iteration.find((each) => each.name === 'skills')!;
    expect(perStep(stage)).toBe(stage);
    expect(stageNames(planned).slice(0, 3)).toEqual(['context', 'workspace', 'plan']);
  });

  it('an offline run loads the skill its task names, then answers', async () => {
    const events: Array<{ type: string; data: unknown }> = [];
    const result = await runPipeline(
      withWorkspace(reactPipeline(), { skills: [vat] }),
      { task: 'Use vat-rates: what is 100 * 1.2?' },
      {
        deps: {
          model: new OfflineModel(),
          tools: new ToolRegistry([testCalculator, ...skillTools([vat])]),
          onEvent: (event) => events.push(event),
        },
      },
    );
    expect(result.answer).toBe('100 * 1.2 = 120');
    expect(events.filter((event) => event.type === 'skill_loaded').map((event) => event.data)).toEqual([
      { name: 'vat-rates' },
    ]);
  });
});
