// The composition root: a run recipe plus the environment becomes a pipeline and its deps. The one place that joins
// src/ with stages/ and pipelines/; every command, the server and the workers build their runs here.
import type { JsonObject } from '../src/common/json.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import type { Pipeline } from '../src/engine/pipeline.js';
import { repeatedCallsRule, type SettingNamer } from '../src/engine/guard-settings.js';
import type { Deps } from '../src/engine/stage.js';
import type { Environment } from '../src/model/config.js';
import type { ChatModel } from '../src/model/types.js';
import type { SessionStore } from '../src/sessions/types.js';
import type { CalculatorWorkerHost } from '../src/tools/calculator-host.js';
import type { Tool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { builtInPipelines, type BuiltInPipelineOptions } from '../pipelines/index.js';
import { withApproval, withTaintPolicy } from '../stages/pipeline-policies.js';
import { withWorkspace } from '../stages/workspace-policy.js';
import { detectInjection } from '../stages/guards/injection/injection-detector.js';
import { approvedMcpTools, mcpServerOf, toolsOf } from './recipe-tools.js';
import { withRecordedSecrets } from './recipe-secrets.js';
import { applyGuards, guardDefaults } from '../pipelines/guards.js';
import { schemaOfJson } from './output-schema.js';
import { agentPipeline, buildTeam } from './agents.js';
import type { ModelChoice, ProviderTable } from './providers.js';
import { recordOf, type RunRecipe } from './recipe.js';

export const pipelineNames = Object.keys(builtInPipelines);

/** What the process assembling a run lends it. */
export interface AssemblyHost {
  /** The calculator's worker process (started early by the CLI so it loads while the run is assembled). */
  calculatorHost?: CalculatorWorkerHost;
  /** The session store a session run reads and writes; else the SQLite file at `sessionFile` is opened. */
  sessions?: SessionStore;
  /** The SQLite file of the sessions (the runs' store file); default $STAGELOOP_HOME or ./.stageloop. */
  sessionFile?: string;
  /** The rows that build models (default app/providers.ts's table). */
  providers?: ProviderTable;
  /** How an error about a guard setting names it: the CLI by its flag (default: the recipe's field). */
  settingName?: SettingNamer;
}

export interface AssembledRun {
  pipeline: Pipeline;
  /** The model, tools and (for a session run) the session store. */
  deps: Partial<Deps> & { model: ChatModel; tools: ToolRegistry };
  /** The recipe with what the environment decided filled in (offline or not). */
  recipe: RunRecipe;
  /** What to pass as runPipeline's `record`: the recipe, so the run can be rebuilt. */
  record: JsonObject;
  /** One line for stderr saying which model is in use and why. */
  notice: string;
  offline: boolean;
  /** Closes what the run opened: the session store it opened, MCP servers. */
  close(): Promise<void>;
}

/** Where a pipeline's stages look a tool up by name: the run's registry, or for a replay the recorded traits. */
export type ToolLookup = { get(name: string): Tool | undefined };

/** What the taint policy reads of each tool, recorded with the run so a replay (which starts no MCP server) decides alike. */
function traitsOf(tools: ToolRegistry): JsonObject {
  return Object.fromEntries(
    tools.names.map((name) => {
      const tool = tools.get(name)!;
      return [name, { effects: tool.effects ?? 'write', taints: tool.taints === true }];
    }),
  );
}

/** The recorded tool traits as a lookup: enough for the taint and approval stages to replay; undefined for older runs. */
export function recordedTools(options: JsonObject): ToolLookup | undefined {
  const traits = options.toolTraits;
  if (traits === null || typeof traits !== 'object' || Array.isArray(traits)) return undefined;
  const byName = new Map(
    Object.entries(traits).map(([name, value]) => {
      const trait = (value ?? {}) as { effects?: unknown; taints?: unknown };
      const effects = trait.effects === 'none' || trait.effects === 'read' ? trait.effects : 'write';
      // Only the traits are known offline: a replay serves every call from the journal, so nothing else is read.
      return [
        name,
        { name, description: '', effects, ...(trait.taints === true && { taints: true }) } as unknown as Tool,
      ];
    }),
  );
  return { get: (name) => byName.get(name) };
}

/** The recipe's context files and skills in the pipeline; files from outside the project screened by the injection detector. */
function workspaceOf(pipeline: Pipeline, recipe: RunRecipe): Pipeline {
  const given = recipe.workspace;
  if (given === undefined) return pipeline;
  return withWorkspace(pipeline, { files: given.files, skills: given.skills, detector: detectInjection });
}

/** The recipe's pipeline: the built-in one with session stages and output schema, its guards and its approval stage. */
export function pipelineOf(recipe: RunRecipe, modelName?: string, tools?: ToolLookup): Pipeline {
  // A run made with --agent is that agent's pipeline (its own agents are tools: a replay serves their calls).
  const build = (built: RunRecipe) => buildPipeline(built, modelName, tools);
  return recipe.agent === undefined ? build(recipe) : agentPipeline(recipe, recipe.agent, build);
}

function buildPipeline(
  recipe: RunRecipe,
  modelName: string | undefined,
  tools: ToolLookup | undefined,
  settingName?: SettingNamer,
): Pipeline {
  const factory = builtInPipelines[recipe.pipeline];
  if (factory === undefined)
    throw new StageloopError(
      'usage',
      `unknown pipeline "${recipe.pipeline}": choose one of ${pipelineNames.join(', ')}`,
    );
  const options: BuiltInPipelineOptions = {};
  if (recipe.session !== undefined)
    options.session = { memory: { summarizer: recipe.model.offline === false ? 'model' : 'extractive' } };
  if (recipe.outputSchema !== undefined) options.outputSchema = schemaOfJson(recipe.outputSchema, 'the output schema');
  if (recipe.maxParallelSteps !== undefined) options.maxParallelSteps = recipe.maxParallelSteps;
  if (recipe.instructions !== undefined) options.context = { instructions: recipe.instructions };
  // The default guards (and the CLI's 10-minute time limit) unless the recipe predates them or says --no-guards.
  const environment = {
    defaults: recipe.guardDefaults,
    defaultTimeoutSeconds: guardDefaults.cliTimeoutSeconds,
    ...(modelName !== undefined && { modelName }),
    ...(settingName !== undefined && { name: settingName }),
  };
  const guarded = applyGuards(workspaceOf(factory({ ...options, guards: false }), recipe), recipe.guards, environment);
  const approveTools = recipe.approvals.tools;
  // An MCP server's approveTools are exceptions to the list (decided from the recipe: a replay builds the same).
  const except = approvedMcpTools(recipe);
  const listed = approveTools === undefined ? {} : { tools: approveTools, ...(except.length > 0 && { except }) };
  const asked =
    approveTools === undefined
      ? guarded
      : withApproval(guarded, { ...listed, ...(tools !== undefined && { registry: tools }) });
  // The taint policy only when the recipe's tools can trip it, decided from the recipe alone so a replay builds the
  // same pipeline: web search or an MCP server can taint; a session's remember or an MCP server can write.
  const policy = recipe.approvals.taintPolicy;
  const canTaint = recipe.tools.webSearch === true || recipe.mcpServers.length > 0;
  const canWrite = recipe.session !== undefined || recipe.mcpServers.length > 0;
  if (policy === 'off' || !canTaint || !canWrite) return asked;
  return withTaintPolicy(asked, policy, tools ?? { get: () => undefined }, listed);
}

/** The run a recipe describes, with this process's environment for every secret (a missing one is a config error naming it). */
export async function assemble(recipe: RunRecipe, given: Environment, host: AssemblyHost = {}): Promise<AssembledRun> {
  const { model } = recipe;
  // A literal config secret the first process lent is read again from its file (approve and resume from a new shell).
  const env = withRecordedSecrets(recipe, given);
  // Models and tools load here, not with the module: `stageloop pipelines` builds pipelines only.
  const [{ chooseModel, providers }, { withFallbacks }] = await Promise.all([
    import('./providers.js'),
    import('./ingredients.js'),
  ]);
  const table = host.providers ?? providers;
  const choice = await withFallbacks(await chooseModel(model, env, table), model, env, table);
  const mcpServers = recipe.mcpServers.map((server) => mcpServerOf(server, env));
  let sessions: SessionStore | undefined;
  let ownsSessions = false;
  try {
    if (recipe.session !== undefined) {
      sessions = host.sessions;
      if (sessions === undefined) {
        const { openSessionStore } = await import('../src/sessions/open-sessions.js');
        sessions = await openSessionStore({ env, ...(host.sessionFile !== undefined && { path: host.sessionFile }) });
        ownsSessions = true;
      }
    }
    // The tool gate enforces the recipe's approvals on every call, in every pipeline, step and agent (tool-gate.ts).
    const repeatedCalls = repeatedCallsRule(recipe.guards);
    const tools = (await toolsOf(recipe, env, host.calculatorHost, mcpServers, sessions)).with({
      approvals: {
        ...(recipe.approvals.tools !== undefined && {
          tools: recipe.approvals.tools,
          except: approvedMcpTools(recipe),
        }),
        taintPolicy: recipe.approvals.taintPolicy,
        // --on-repeat ask: the gate holds a repeated failing call for a person, in every pipeline, step and agent.
        ...(repeatedCalls !== undefined && { repeatedCalls }),
      },
    });
    // What the environment decided is part of the run from now on: resume and replay use the same model.
    const resolved: RunRecipe = {
      ...recipe,
      model: { ...model, provider: choice.provider, offline: choice.offline },
      tools: { ...recipe.tools, webSearch: tools.names.includes('web_search') },
    };
    const team =
      recipe.agent === undefined
        ? undefined
        : buildTeam(
            {
              recipe: resolved,
              tools,
              model: choice.model,
              agentModels: await agentModels(resolved, choice, env, table),
              pipelineFor: (agentRecipe, modelName) => buildPipeline(agentRecipe, modelName, tools, host.settingName),
            },
            recipe.agent,
          );
    const pipeline = team?.pipeline ?? buildPipeline(resolved, choice.model.modelName, tools, host.settingName);
    const runTools = team?.tools ?? tools;
    const deps: AssembledRun['deps'] = {
      model: team?.model ?? choice.model,
      tools: runTools,
      ...(sessions !== undefined && { sessions }),
      ...(team !== undefined && { agent: { path: team.path } }),
    };
    const opened = sessions;
    return {
      pipeline,
      deps,
      recipe: resolved,
      record: { ...recordOf(resolved), toolTraits: traitsOf(runTools) },
      notice: choice.notice,
      offline: choice.offline,
      async close() {
        if (ownsSessions) opened?.close();
        if (mcpServers.length > 0) await (await import('../src/tools/mcp/index.js')).closeMcpServers();
      },
    };
  } catch (error) {
    if (ownsSessions) sessions?.close();
    if (mcpServers.length > 0) await (await import('../src/tools/mcp/index.js')).closeMcpServers();
    throw error;
  }
}

/** The model of each agent that names one: on the run's server, by the run's row (an offline run has none to offer). */
async function agentModels(
  recipe: RunRecipe,
  choice: ModelChoice,
  env: Environment,
  table: ProviderTable,
): Promise<Map<string, ChatModel>> {
  const models = new Map<string, ChatModel>();
  const { providerRow } = await import('./providers.js');
  for (const [name, agent] of Object.entries(recipe.agents)) {
    if (agent.model === undefined) continue;
    if (choice.offline)
      throw new StageloopError(
        'config',
        `agent "${name}" names model ${agent.model}, which needs a model server: set OPENAI_API_KEY or pass --base-url (or remove its "model" to use the run's)`,
      );
    models.set(
      name,
      await providerRow(choice.provider, table)(
        { name: agent.model, ...(recipe.model.baseUrl !== undefined && { baseUrl: recipe.model.baseUrl }) },
        env,
      ),
    );
  }
  return models;
}
