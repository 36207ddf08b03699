// The process the agent crash test kills: a coordinator run recorded in SQLite that asks a researcher agent, whose
// counting tool appends a line to a side-effect log per execution and, in the first attempt, hangs in its second call.
//
//   node --import tsx tests/agents/agent-crash-child.ts '<AgentCrashConfig as JSON>'
//
// stdout lines: "tool <step>", "result <{ status, answer, usage } as JSON>".
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/react.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import { handoff } from '../../src/agents/handoff.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import type { Deps } from '../../src/engine/stage.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { openStore } from '../../src/store/location.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ChildConfig } from '../durable/crash-child.js';

/** The durable crash child's settings that this child shares (a type import: that file runs when loaded). */
export type AgentCrashConfig = Pick<ChildConfig, 'db' | 'runId' | 'action' | 'serverUrl' | 'sideLog' | 'attempt'> & {
  /** The coordinator hands the run off to the researcher instead of asking it as a tool. */
  handoff?: boolean;
};

const config = JSON.parse(process.argv[2] ?? '{}') as AgentCrashConfig;
const mark = (line: string) => new Promise((resolve) => process.stdout.write(`${line}\n`, resolve));

const count = defineTool({
  name: 'count',
  description: 'Counts one step.',
  parameters: z.object({ step: z.number().int() }),
  // Safe to run again (the side log tells the attempts apart): a call cut off by the kill re-runs on resume rather
  // than waiting for a person, as a write in doubt would (tests/durable/effects-lab.test.ts).
  idempotent: true,
  async execute({ step }) {
    appendFileSync(config.sideLog, `${config.attempt}\t${step}\n`);
    await mark(`tool ${step}`);
    // The first process dies here, inside the child's second tool call.
    if (config.attempt === 1 && step === 2) await new Promise(() => undefined);
    return `step ${step} counted`;
  },
});

const model = (name: string) =>
  new OpenAIChatModel({ baseUrl: config.serverUrl, model: name, apiKey: 'sk-test', maxRetries: 0, timeoutMs: 10_000 });

const agentCrashPipeline = (config: AgentCrashConfig) => reactPipeline({ handoffs: config.handoff === true });

async function main(): Promise<void> {
  const store = openStore({ path: config.db });
  const researcherOptions = {
    name: 'researcher',
    description: 'Counts.',
    pipeline: reactPipeline(),
    deps: { model: model('researcher-model'), tools: new ToolRegistry([count]) },
  };
  const researcher = config.handoff === true ? handoff(researcherOptions) : agentTool(researcherOptions);
  const pipeline = agentCrashPipeline(config);
  const deps: Partial<Deps> = {
    model: model('coordinator-model'),
    tools: new ToolRegistry([researcher]),
    ids: { newId: () => config.runId },
    agent: { path: ['coordinator'] },
  };
  const result =
    config.action === 'start'
      ? await runPipeline(pipeline, { task: 'Count to two with the researcher.' }, { store, deps })
      : await resumeRun(store, config.runId, { pipeline, deps });
  await mark(`result ${JSON.stringify({ status: result.status, answer: result.answer, usage: result.usage })}`);
  await store.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `agent-crash-child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
