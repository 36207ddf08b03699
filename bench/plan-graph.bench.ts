// Plan steps side by side: three independent steps whose tool takes 200 ms each, then a step that needs all three;
// wall time with maxParallelSteps 3 against 1 (one after another), same scripted model, same tool, same run.
import { z } from 'zod';
import { planExecuteReplanPipeline } from '../pipelines/plan-execute-replan.js';
import { runPipeline } from '../src/engine/runner.js';
import { ScriptedModel, type ScriptedStep } from '../src/model/scripted-model.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { format, median } from './measure.js';

const toolMs = 200;
const keep = { content: '{"need_replan":false,"reason":"on track","new_steps":[]}' };
const call = (key: string) => ({ name: 'fetch', arguments: JSON.stringify({ key }) });
const plan = {
  content: JSON.stringify({
    goal: 'g',
    steps: [
      { id: 'a', description: 'Fetch a', dependsOn: [] },
      { id: 'b', description: 'Fetch b', dependsOn: [] },
      { id: 'c', description: 'Fetch c', dependsOn: [] },
      { id: 'd', description: 'Combine', dependsOn: ['a', 'b', 'c'] },
    ],
  }),
};

/** The model's replies in the order each setting asks: side by side, the three steps ask in the same iteration. */
function script(parallel: boolean): ScriptedStep[] {
  const steps = ['a', 'b', 'c'];
  const work = parallel
    ? [
        ...steps.map((key) => ({ toolCalls: [call(key)] })),
        ...steps.map((key) => ({ content: key.toUpperCase() })),
        keep,
      ]
    : steps.flatMap((key) => [{ toolCalls: [call(key)] }, { content: key.toUpperCase() }, keep]);
  return [plan, ...work, { content: 'ABC' }, keep, { content: 'done' }];
}

const tools = new ToolRegistry([
  defineTool({
    name: 'fetch',
    description: 'Fetches a value (takes 200 ms).',
    parameters: z.object({ key: z.string() }),
    execute: ({ key }) => new Promise<string>((resolve) => setTimeout(() => resolve(`value of ${key}`), toolMs)),
  }),
]);

async function wallMs(maxParallelSteps: number): Promise<number> {
  const model = new ScriptedModel(script(maxParallelSteps > 1));
  const started = performance.now();
  const result = await runPipeline(
    planExecuteReplanPipeline({ maxParallelSteps }),
    { task: 'combine' },
    { deps: { model, tools } },
  );
  const elapsed = performance.now() - started;
  model.assertConsumed();
  if (result.status !== 'completed')
    throw new Error(`the bench run ended ${result.status}: ${result.stopReason.message}`);
  return elapsed;
}

export async function run(): Promise<void> {
  const rounds = 5;
  const serial: number[] = [];
  const parallel: number[] = [];
  for (let round = 0; round < rounds; round++) {
    serial.push(await wallMs(1));
    parallel.push(await wallMs(3));
  }
  const [one, three] = [median(serial), median(parallel)];
  console.log(
    `three independent ${toolMs} ms tool steps + a dependent step (median of ${rounds}): maxParallelSteps 1 ${format(one, 0)} ms, maxParallelSteps 3 ${format(three, 0)} ms (${format(one / three, 2)}x faster; floor: one tool time ${toolMs} ms per wave)`,
  );
}
