// The plan-graph tests' shared fixtures: a plan reply, a keep-going replan, fetch calls and a logging fetch tool.
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import {
  planExecuteReplanPipeline,
  type PlanExecuteReplanPipelineOptions,
} from '../../pipelines/plan-execute-replan.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel, type ScriptedStep } from '../../src/model/scripted-model.js';

export const graph = (
  ...steps: Array<{ id: string; description: string; dependsOn: string[]; priority?: number }>
) => ({
  content: JSON.stringify({ goal: 'the task', steps }),
});
export const keep = { content: '{"need_replan":false,"reason":"on track","new_steps":[]}' };
export const fetchCall = (key: string) => ({ name: 'fetch', arguments: JSON.stringify({ key }) });

/** A `fetch` tool that logs each execution; keys in `together` wait (bounded) until all of them have started. */
export function fetchTools(
  log: string[],
  options: { together?: string[]; hang?: string; spans?: Map<string, [number, number]> } = {},
) {
  const started = new Set<string>();
  let release: () => void = () => undefined;
  const allStarted = new Promise<void>((resolve) => (release = resolve));
  const fetch = defineTool({
    name: 'fetch',
    description: 'Fetches the value stored under a key.',
    parameters: z.object({ key: z.string() }),
    // Reads only: a call cut off by a crash runs again on resume (a write would wait for a person: effects-lab).
    effects: 'read',
    async execute({ key }) {
      log.push(key);
      const start = performance.now();
      if (key === options.hang) await new Promise(() => {});
      if (options.together?.includes(key)) {
        started.add(key);
        if (options.together.every((name) => started.has(name))) release();
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<never>(
          (_resolve, reject) =>
            (timer = setTimeout(() => reject(new Error(`${key}: the other steps never started alongside`)), 20_000)),
        );
        await Promise.race([allStarted, bound]).finally(() => clearTimeout(timer));
      }
      options.spans?.set(key, [start, performance.now()]);
      return `value of ${key}`;
    },
  });
  return new ToolRegistry([fetch], { defaultTimeoutMs: 30_000 });
}

/** Polls `condition` every 10 ms, for 20 s at the most. */
export async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not reached within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A Plan-Execute-Replan run of task "t" on a scripted model and the fetch tool: its result, events and model (all consumed). */
export async function runPlan(script: ScriptedStep[], options: PlanExecuteReplanPipelineOptions = {}) {
  const model = new ScriptedModel(script);
  const events: RunEvent[] = [];
  const result = await runPipeline(
    planExecuteReplanPipeline(options),
    { task: 't' },
    { deps: { model, tools: fetchTools([]), onEvent: (event) => events.push(event) } },
  );
  model.assertConsumed();
  return { result, events, model };
}
