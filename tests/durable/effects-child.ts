// The process the effects crash lab (effects-lab.test.ts) kills: starts or resumes one recorded run whose write tool
// appends a line to a file (a local tool, or its MCP twin in a server child process), and stops dead at one aimed
// point for one line's text: it prints "at <point> <text>" and never goes on, and the test kills it on that line.
//   node effects-child.mjs '<EffectsConfig as JSON>'
// stdout: "at <point> <text>" lines, then "result <RunResult as JSON>".
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import { agentTool } from '../../src/agents/agent-tool.js';
import { handoff } from '../../src/agents/handoff.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import type { Decision } from '../../src/engine/decision-types.js';
import type { Pipeline } from '../../src/engine/pipeline.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { openStore } from '../../src/store/location.js';
import type { RunStore, StoredEntry } from '../../src/store/types.js';
import { defineTool, type Tool } from '../../src/tools/define-tool.js';
import { mcpTools } from '../../src/tools/mcp/mcp-tools.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { reactPipeline } from '../../pipelines/react.js';

export type Point = 'before-intent' | 'after-intent' | 'inside' | 'after-tool' | 'after-result';
export type Scenario = 'react' | 'plan' | 'agent' | 'handoff';

export interface EffectsConfig {
  db: string;
  runId: string;
  action: 'start' | 'resume';
  decisions?: Record<string, Decision>;
  serverUrl: string;
  file: string;
  scenario: Scenario;
  tool: 'local' | 'mcp';
  /** The MCP twin's script (bundled beside this one). */
  mcpServer: string;
  /** Stop dead at this point of the call that writes this text. */
  aim?: { point: Point; text: string };
}

const config = JSON.parse(process.argv[2] ?? '{}') as EffectsConfig;
const aim = config.aim;
const stopDead = (point: Point, text: string): Promise<never> | undefined => {
  if (aim === undefined || aim.point !== point || aim.text !== text) return undefined;
  process.stdout.write(`at ${point} ${text}\n`);
  return new Promise<never>(() => setInterval(() => undefined, 60_000));
};

const localTool = defineTool({
  name: 'append_line',
  description: 'Appends a line of text to the file.',
  parameters: z.object({ text: z.string() }),
  effects: 'write',
  async execute({ text }, ctx) {
    appendFileSync(config.file, `${ctx.idempotencyKey}\t${text}\n`);
    await stopDead('inside', text);
    return `appended ${text}`;
  },
});

/** The texts of the append_line calls in a batch of entries of this kind. */
function textsIn(entries: readonly StoredEntry[], kind: 'intent' | 'tool'): string[] {
  return entries.flatMap((entry) =>
    entry.kind !== kind
      ? []
      : (entry.data as { calls: Array<{ name: string; arguments: string }> }).calls
          .filter((call) => call.name.endsWith('append_line'))
          .map((call) => (JSON.parse(call.arguments) as { text: string }).text),
  );
}

/** The real store, stopping dead before or after the write that holds the aimed call's intent or result. */
function aimingStore(store: RunStore): RunStore {
  const around = async (entries: StoredEntry[], write: () => Promise<void>) => {
    const [intents, results] = [textsIn(entries, 'intent'), textsIn(entries, 'tool')];
    for (const text of intents) await stopDead('before-intent', text);
    for (const text of results) await stopDead('after-tool', text);
    await write();
    for (const text of intents) await stopDead('after-intent', text);
    for (const text of results) await stopDead('after-result', text);
  };
  return {
    ...store,
    append: (claim, entries, options) => around(entries, () => store.append(claim, entries, options)),
  };
}

async function writeTools(): Promise<Tool[]> {
  if (config.tool === 'local') return [localTool];
  const env: Record<string, string> = { EFFECTS_FILE: config.file };
  if (aim?.point === 'inside') env.EFFECTS_INSIDE_TEXT = aim.text;
  return mcpTools({ name: 'effects', command: process.execPath, args: [config.mcpServer], env });
}

async function main(): Promise<void> {
  const store = aimingStore(openStore({ path: config.db }));
  const model = new OpenAIChatModel({
    baseUrl: config.serverUrl,
    model: 'test-model',
    apiKey: 'sk-test',
    maxRetries: 0,
  });
  const writers = new ToolRegistry(await writeTools());
  const writer = { name: 'writer', description: 'Writes the lines it is asked for.' };
  const child = { pipeline: reactPipeline({ guards: false }), deps: { model, tools: writers } };
  const [pipeline, tools]: [Pipeline, ToolRegistry] =
    config.scenario === 'react'
      ? [reactPipeline({ guards: false }), writers]
      : config.scenario === 'plan'
        ? [planExecuteReplanPipeline({ guards: false, maxIterations: 6 }), writers]
        : config.scenario === 'agent'
          ? [reactPipeline({ guards: false }), new ToolRegistry([agentTool({ ...writer, ...child })])]
          : [reactPipeline({ guards: false, handoffs: true }), new ToolRegistry([handoff({ ...writer, ...child })])];
  const deps = { model, tools, ids: { newId: () => config.runId } };
  const result =
    config.action === 'start'
      ? await runPipeline(pipeline, { task: 'Write the lines.' }, { store, deps })
      : await resumeRun(store, config.runId, {
          pipeline,
          deps,
          takeOver: true,
          ...(config.decisions !== undefined && { decisions: config.decisions }),
        });
  const line = `result ${JSON.stringify(result, (key, value: unknown) => (key === 'cause' ? undefined : value))}\n`;
  await new Promise((resolve) => process.stdout.write(line, resolve));
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `effects-child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
