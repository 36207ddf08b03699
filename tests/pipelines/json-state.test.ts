import { describe, expect, it } from 'vitest';
import { builtInPipelines } from '../../pipelines/index.js';
import { context, summarize, think } from '../../stages/index.js';
import { definePipeline, insertAfter, stageNames, type Pipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { Stage } from '../../src/engine/stage.js';
import { ScriptedModel, type ScriptedStep } from '../../src/model/scripted-model.js';
import { testTools } from '../support/stage-tools.js';

const calc = (expression: string) => ({ name: 'calculator', arguments: JSON.stringify({ expression }) });

/** Scripts that reach every stage of each pipeline: tool calls, an error, a replan, the summary. */
const scripts: Record<string, ScriptedStep[]> = {
  react: [
    { toolCalls: [calc('17 * 23'), { name: 'calculator', arguments: '{"nope":1}' }] },
    { toolCalls: [calc('391 + 4')] },
    { content: '395' },
  ],
  'plan-execute-replan': [
    {
      content: JSON.stringify({
        steps: [
          { description: 'Compute 12*12', status: 'pending' },
          { description: 'Add 10', status: 'pending' },
        ],
      }),
    },
    { toolCalls: [calc('12*12')] },
    { content: '144' },
    {
      content: JSON.stringify({ need_replan: true, reason: 'finish in one go', new_steps: ['Compute (144 + 10) / 2'] }),
    },
    { toolCalls: [calc('(144 + 10) / 2')] },
    { content: '77' },
    { content: '{"need_replan":false,"reason":"done","new_steps":[]}' },
    { content: '77' },
  ],
  responder: [{ content: 'hello' }],
};

const responder = definePipeline({
  name: 'responder',
  setup: [context()],
  iteration: [think({ useTools: false })],
  finalize: [summarize()],
  maxIterations: 2,
});
const pipelines: Array<[string, Pipeline]> = [
  ...Object.entries(builtInPipelines).map(([name, build]): [string, Pipeline] => [name, build()]),
  ['responder', responder],
];

describe('RunState stays plain JSON at every stage boundary', () => {
  it('covers every built-in pipeline', () => {
    expect(Object.keys(builtInPipelines).sort()).toEqual(['plan-execute-replan', 'react']);
  });

  it.each(pipelines)('%s', async (name, built) => {
    let pipeline = built;
    const checked: string[] = [];
    const checker = (after: string): Stage => ({
      name: `check-after-${after}`,
      async execute(state) {
        expect(JSON.parse(JSON.stringify(state))).toEqual(state);
        checked.push(after);
      },
    });
    for (const stage of stageNames(built)) pipeline = insertAfter(pipeline, stage, checker(stage));
    const model = new ScriptedModel(scripts[name]!);
    const result = await runPipeline(pipeline, { task: 'task' }, { deps: { model, tools: testTools() } });
    model.assertConsumed();
    expect(result.status).toBe('completed');
    expect(new Set(checked)).toEqual(new Set(stageNames(built)));
  });
});
