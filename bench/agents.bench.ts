// An agent as a tool: what a call to an agent (a child run of the same pipeline) costs over a call to a plain tool,
// per call. Both runs are ReAct without guards on an in-process model that answers at once; the plain tool echoes.
import { z } from 'zod';
import { reactPipeline } from '../pipelines/react.js';
import { agentTool } from '../src/agents/agent-tool.js';
import { runPipeline } from '../src/engine/runner.js';
import { emptyUsage, type ChatModel, type ChatRequest, type ChatResponse } from '../src/model/types.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { collectGarbage, format, median, timeMs } from './measure.js';

/** Calls the first tool offered once, then answers with its result; with no tools it answers the task. */
const model: ChatModel = {
  provider: 'bench',
  modelName: 'bench-model',
  async chat(request: ChatRequest): Promise<ChatResponse> {
    const result = request.messages.find((message) => message.role === 'tool');
    const tool = request.tools?.[0];
    const base = { finishReason: 'stop' as const, usage: emptyUsage(), model: 'bench-model', latencyMs: 0 };
    if (result !== undefined || tool === undefined)
      return { ...base, content: result?.content ?? 'done', toolCalls: [] };
    return {
      ...base,
      content: '',
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_1', name: tool.name, arguments: JSON.stringify({ task: 'echo this' }) }],
    };
  },
};

const echo = defineTool({
  name: 'echo',
  description: 'Echoes.',
  parameters: z.object({ task: z.string() }),
  execute: ({ task }) => task,
});
const agent = agentTool({
  name: 'helper',
  description: 'Answers.',
  pipeline: reactPipeline({ guards: false }),
  deps: { model },
});
const pipeline = reactPipeline({ guards: false });
const plainTools = new ToolRegistry([echo]);
const agentTools = new ToolRegistry([agent]);

async function perRunMicros(tools: ToolRegistry, runs: number): Promise<number> {
  const ms = await timeMs(async () => {
    for (let index = 0; index < runs; index++) await runPipeline(pipeline, { task: 't' }, { deps: { model, tools } });
  });
  return (ms * 1000) / runs;
}

const runs = 2_000;
const plain: number[] = [];
const agents: number[] = [];
for (let round = 0; round < 5; round++) {
  collectGarbage();
  plain.push(await perRunMicros(plainTools, runs));
  collectGarbage();
  agents.push(await perRunMicros(agentTools, runs));
}
const floor = median(plain);
const withAgent = median(agents);
console.log(`run with one plain tool call: ${format(floor, 1)} µs (median of 5 x ${format(runs, 0)})`);
console.log(`run with one agent-as-tool call: ${format(withAgent, 1)} µs (${format(withAgent / floor, 2)}x)`);
console.log(
  `an agent call costs ${format(withAgent - floor, 1)} µs more than a plain tool call (a child run: its setup, one turn, its finalize)`,
);
