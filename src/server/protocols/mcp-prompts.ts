// One MCP prompt per pipeline: the task template a client fills in (argument `task`) and sends to the pipeline's tool;
// and one per configured agent: its instructions with the task. The `task` argument completes from the tasks of
// recorded runs (completion/complete).
import { completable, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { RunStore } from '../../store/types.js';
import type { AgentInfo, PipelineInfo } from '../pipeline-info.js';

/** Recorded runs whose tasks are offered as completions, and completions at most. */
const searchedRuns = 200;
const offered = 20;

export function registerPipelinePrompts(
  server: McpServer,
  pipelines: readonly PipelineInfo[],
  store: RunStore,
  agents: readonly AgentInfo[] = [],
): void {
  // Tasks people gave before, newest first, without repeats: the likeliest next ones.
  const pastTasks = async (value: string) => {
    const tasks = (await store.list({ limit: searchedRuns })).map((run) => run.input.task);
    const typed = value.toLowerCase();
    const matching = tasks.filter(
      (task): task is string => typeof task === 'string' && task.toLowerCase().startsWith(typed),
    );
    return [...new Set(matching)].slice(0, offered);
  };
  const taskArgument = z.object({
    task: completable(z.string().describe('what the agent should do, in plain words'), pastTasks),
  });
  for (const pipeline of pipelines) {
    server.registerPrompt(
      pipeline.name,
      {
        title: `Ask the stageloop ${pipeline.name} agent`,
        description: `A task for the "${pipeline.name}" agent (stages: ${pipeline.iteration.join(', ')}; at most ${pipeline.maxIterations} iterations), to send to its tool.`,
        argsSchema: taskArgument,
      },
      ({ task }) => ({
        description: `Run the stageloop "${pipeline.name}" agent on a task`,
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: `Use the "${pipeline.name}" tool (a stageloop agent) with this task, and report its answer:\n\n${task}`,
            },
          },
        ],
      }),
    );
  }
  const pipelineNames = new Set(pipelines.map((pipeline) => pipeline.name));
  for (const agent of agents) {
    // Prompt names are one namespace: an agent named like a pipeline keeps its own prompt under `agent-NAME`.
    const name = pipelineNames.has(agent.name) ? `agent-${agent.name}` : agent.name;
    server.registerPrompt(
      name,
      {
        title: `Act as the ${agent.name} agent`,
        description: `${agent.description} (a stageloop agent on the "${agent.pipeline}" pipeline; POST /v1/runs with "agent": "${agent.name}" runs it)`,
        argsSchema: taskArgument,
      },
      ({ task }) => ({
        description: agent.description,
        messages: [{ role: 'user', content: { type: 'text', text: `${agent.instructions}\n\nTask: ${task}` } }],
      }),
    );
  }
}
