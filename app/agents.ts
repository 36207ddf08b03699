// The team of a run made with --agent: the recipe's agents become tools of one another (agentTool) and handoffs
// (`transfer_to_NAME`), each with its own pipeline (built like the run's), instructions, tools and model. Built from
// the recipe alone, so resume and replay rebuild the same team without the config file.
import { StageloopError } from '../src/common/stageloop-error.js';
import { agentTool } from '../src/agents/agent-tool.js';
import { handoff } from '../src/agents/handoff.js';
import { withHandoffs } from '../stages/loop/handoff.js';
import type { Pipeline } from '../src/engine/pipeline.js';
import type { ChatModel } from '../src/model/types.js';
import type { Tool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { RunToolBox } from '../src/engine/tool-run.js';
import type { ToolBox } from '../src/engine/tool-port.js';
import type { AgentRecipe, RunRecipe } from './recipe.js';

export interface TeamParts {
  /** The run's recipe, with what the environment decided filled in. */
  recipe: RunRecipe;
  /** The tools an agent may name: built-in, MCP. */
  tools: ToolRegistry;
  /** The run's model, and the model of each agent that names its own. */
  model: ChatModel;
  agentModels: ReadonlyMap<string, ChatModel>;
  /** The assembler's pipeline builder (guards, approvals, output schema) for a recipe. */
  pipelineFor(recipe: RunRecipe, modelName: string | undefined): Pipeline;
}

export interface Team {
  pipeline: Pipeline;
  tools: ToolRegistry;
  /** The root agent's model. */
  model: ChatModel;
  path: string[];
}

/** The recipe's agent by name; a name the recipe has no agent for is a usage error listing them. */
export function agentOf(recipe: RunRecipe, name: string): AgentRecipe {
  const agent = isAgent(recipe, name) ? recipe.agents[name] : undefined;
  if (agent === undefined) {
    const known = Object.keys(recipe.agents);
    throw new StageloopError(
      'usage',
      `no agent named "${name}": ${known.length > 0 ? `the agents are ${known.join(', ')}` : 'define agents in stageloop.config.json under "agents"'}`,
    );
  }
  return agent;
}

/** Own names only: "constructor" is no agent because every object has one. */
const isAgent = (recipe: RunRecipe, name: string): boolean => Object.hasOwn(recipe.agents, name);

/** An agent named like a tool of the run would take its place in every agent's tool list: refused, one line. */
function checkNamesApart(recipe: RunRecipe, tools: ToolRegistry): void {
  const taken = Object.keys(recipe.agents).find((name) => tools.get(name) !== undefined);
  if (taken === undefined) return;
  throw new StageloopError(
    'config',
    `agents.${taken}: the agent "${taken}" has the name of a tool of this run (the tools are ${tools.names.join(', ')}): rename the agent, agents and tools share one list of names`,
  );
}

/** The recipe as the agent's own run: its pipeline and instructions, no further agent. */
export function asAgentRecipe(recipe: RunRecipe, name: string): RunRecipe {
  const agent = agentOf(recipe, name);
  const { agent: _root, ...rest } = recipe;
  return { ...rest, pipeline: agent.pipeline, instructions: agent.instructions };
}

/** The agent's pipeline: built like the run's, with the handoff stage when it may hand off. */
export function agentPipeline(recipe: RunRecipe, name: string, build: (recipe: RunRecipe) => Pipeline): Pipeline {
  const pipeline = build(asAgentRecipe(recipe, name));
  return agentOf(recipe, name).handoffs.length > 0 ? withHandoffs(pipeline) : pipeline;
}

export function buildTeam(parts: TeamParts, root: string): Team {
  checkNamesApart(parts.recipe, parts.tools);
  const agentTools = new Map<string, Tool>();
  const handoffTools = new Map<string, Tool>();
  const registries = new Map<string, ToolRegistry>();
  const modelOf = (name: string) => parts.agentModels.get(name) ?? parts.model;

  function registryOf(name: string): ToolRegistry {
    const existing = registries.get(name);
    if (existing !== undefined) return existing;
    const agent = agentOf(parts.recipe, name);
    const names = [...new Set([...agent.tools, ...agent.agents])];
    const tools = names.map((toolName) => {
      if (isAgent(parts.recipe, toolName)) return agentToolOf(toolName);
      const tool = parts.tools.get(toolName);
      if (tool === undefined)
        throw new StageloopError(
          'usage',
          `agent "${name}" names the tool "${toolName}", which this run does not have: the tools are ${[...parts.tools.names, ...Object.keys(parts.recipe.agents)].join(', ')}`,
        );
      return tool;
    });
    const registry = new ToolRegistry([...tools, ...agent.handoffs.map(handoffToolOf)], parts.tools.options);
    registries.set(name, registry);
    return registry;
  }

  /** The agent as a tool (its name) or as a handoff (`transfer_to_NAME`), each made once. */
  function member(name: string, made: Map<string, Tool>, make: typeof agentTool | typeof handoff): Tool {
    const existing = made.get(name);
    if (existing !== undefined) return existing;
    const agent = agentOf(parts.recipe, name);
    // Its tools are made when it first runs: agents may name one another (the depth limit ends a cycle).
    const lazyTools: RunToolBox = {
      definitions: () => registryOf(name).definitions(),
      executeAll: (calls, signal) => registryOf(name).executeAll(calls, signal),
      forRun: (run) => registryOf(name).forRun(run),
    };
    const model = modelOf(name);
    const tool = make({
      name,
      description: agent.description,
      pipeline: pipelineOf(name),
      deps: { model, tools: lazyTools },
    });
    made.set(name, tool);
    return tool;
  }
  const agentToolOf = (name: string) => member(name, agentTools, agentTool);
  const handoffToolOf = (name: string) => member(name, handoffTools, handoff);
  const pipelineOf = (name: string) =>
    agentPipeline(parts.recipe, name, (recipe) => parts.pipelineFor(recipe, modelOf(name).modelName));

  const pipeline = pipelineOf(root);
  // Every name an agent gives is checked now, not when a model first calls it.
  for (const name of Object.keys(parts.recipe.agents)) registryOf(name);
  return { pipeline, tools: registryOf(root), model: modelOf(root), path: [root] };
}
