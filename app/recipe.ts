// The run recipe: everything that makes a run what it is, as one zod schema. It is recorded with every run (under
// the run's options as `recipe`) and is the only thing resume, replay, approve, reject, the server's decisions
// endpoint and a worker read to rebuild one. Secrets are never in it: a `${VAR}` template stands for each, re-read
// from the environment by the assembler. To add a setting: one line in `runRecipeSchema`, then its use in assemble.ts.
import { z } from 'zod';
import type { JsonObject } from '../src/common/json.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import { guardSettingsSchema, numbersOfText } from '../src/engine/guard-settings.js';
import type { RunInput } from '../src/engine/state.js';
import type { RunSummary } from '../src/store/types.js';

export const recipeVersion = 1;

const jsonObject = z.record(z.string(), z.json()) as unknown as z.ZodType<JsonObject>;

/** A model on another server to fall back to; `apiKey` is a `${VAR}` template, never a key. */
const fallbackServerSchema = z.object({
  model: z.string().min(1),
  baseUrl: z.string().optional(),
  apiKey: z.string().optional(),
});

const modelSchema = z.object({
  /** The row of app/providers.ts that builds the model. Absent: `offline`, else the assembling environment decides. */
  provider: z.string().min(1).optional(),
  /** The built-in offline model. Absent: the assembling environment decides (offline without OPENAI_API_KEY or OPENAI_BASE_URL); the recorded recipe has the answer. */
  offline: z.boolean().optional(),
  /** --model NAME; absent: OPENAI_MODEL of the assembling process, else the adapter's default. */
  name: z.string().optional(),
  /** --base-url URL; absent: OPENAI_BASE_URL of the assembling process, else OpenAI (key in OPENAI_API_KEY). */
  baseUrl: z.string().optional(),
  /** --fallback-model NAME...: models on the same server. */
  fallbacks: z.array(z.string()).default([]),
  /** The config file's `fallback` list: models on other servers. */
  fallbackServers: z.array(fallbackServerSchema).default([]),
});

/** An MCP server; `env` and `headers` values are `${VAR}` templates (a literal value is not recorded). */
const mcpServerSchema = z.object({
  name: z.string().min(1),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Seconds a call may go without an answer or progress; the config's `timeout`. */
  timeout: z.number().positive().optional(),
  roots: z.array(z.object({ uri: z.string(), name: z.string().optional() })).optional(),
  oauth: z
    .object({
      clientId: z.string().optional(),
      clientSecret: z.string().optional(),
      scopes: z.array(z.string()).optional(),
    })
    .optional(),
  approveTools: z.array(z.string()).optional(),
  /** Whether the server's sampling requests reach the run's model at once, after a person's yes, or never. */
  sampling: z.enum(['allow', 'ask', 'deny']).optional(),
});

/** An agent of the config file: a pipeline with its instructions, its tools and the agents it may call. */
const agentSchema = z.object({
  description: z.string().min(1),
  pipeline: z.string().min(1).default('react'),
  /** A model name on the run's server; absent: the run's model. */
  model: z.string().optional(),
  instructions: z.string().min(1),
  tools: z.array(z.string().min(1)).default([]),
  agents: z.array(z.string().min(1)).default([]),
  /** Agents it may hand the rest of the run to (tools `transfer_to_NAME`). */
  handoffs: z.array(z.string().min(1)).default([]),
});

export const runRecipeSchema = z.object({
  version: z.literal(recipeVersion).default(recipeVersion),
  /** A built-in pipeline's name. */
  pipeline: z.string().min(1).default('react'),
  model: modelSchema.prefault({}),
  /** The guard settings (src/engine/guard-settings.ts). */
  guards: guardSettingsSchema.default({}),
  /** The default guards (docs/guards.md) apply; false for runs recorded before they existed, rebuilt as they ran. */
  guardDefaults: z.boolean().default(true),
  /** Calls to these tools (or all) wait for a person; askOnLimit: a spent budget asks. */
  approvals: z
    .object({
      tools: z.union([z.array(z.string()), z.literal('all')]).optional(),
      askOnLimit: z.boolean().default(false),
      /** --taint-policy: a write call after web or MCP content waits for a person (ask), is refused, or runs (off). */
      taintPolicy: z.enum(['ask', 'refuse', 'off']).default('ask'),
    })
    .prefault({}),
  /** The JSON Schema the final answer must match (--output-schema). */
  outputSchema: jsonObject.optional(),
  /** Plan steps that may run at once (--max-parallel-steps; plan-execute-replan's default 3). */
  maxParallelSteps: z.number().int().min(1).optional(),
  /** The session this run is a turn of, and whose it is. */
  session: z.object({ name: z.string().min(1), user: z.string().min(1) }).optional(),
  mcpServers: z.array(mcpServerSchema).default([]),
  /** Where each lent secret comes from: a `STAGELOOP_SECRET_...` variable stands for a literal value of this config file field (app/recipe-secrets.ts). */
  secrets: z.record(z.string(), z.object({ file: z.string().min(1), field: z.array(z.string()).min(1) })).default({}),
  /** The built-in tools beside the calculator: web search needs SERPAPI_API_KEY (absent: offered when it is set); `only`: offer just these by name ([]: none). */
  tools: z.object({ webSearch: z.boolean().optional(), only: z.array(z.string().min(1)).optional() }).prefault({}),
  /** Replaces the default instructions at the top of the system prompt (an eval variant's --instructions). */
  instructions: z.string().min(1).optional(),
  /** The config file's agents, kept with the run so resume and replay build the same team without the file. */
  agents: z.record(z.string(), agentSchema).default({}),
  /** --agent NAME: the run is this agent (its pipeline, instructions and tools), calling the others as tools. */
  agent: z.string().min(1).optional(),
  /** The context files and skills read when the run was made (app/workspace-files.ts): recorded, so resume and replay see them as they were. */
  workspace: z
    .object({
      files: z.array(z.object({ path: z.string(), text: z.string(), origin: z.enum(['project', 'outside']) })),
      skills: z.array(
        z.object({
          name: z.string().min(1),
          description: z.string().min(1),
          body: z.string(),
          folder: z.string(),
          files: z.array(z.string()),
          origin: z.enum(['project', 'outside']),
        }),
      ),
    })
    .optional(),
  /** --trace otlp|console and --trace-content. */
  tracing: z
    .object({ exporter: z.enum(['otlp', 'console']).optional(), content: z.boolean().default(false) })
    .prefault({}),
});

export type RunRecipe = z.output<typeof runRecipeSchema>;
/** A recipe as written by hand or by a client: every field with a default may be left out. */
export type RunRecipeInput = z.input<typeof runRecipeSchema>;
export type McpServerRecipe = RunRecipe['mcpServers'][number];
export type AgentRecipe = RunRecipe['agents'][string];

/** A recipe from its parts, defaults filled in; a bad field is a config error naming it. */
export function makeRecipe(input: RunRecipeInput, where = 'the run recipe'): RunRecipe {
  const parsed = runRecipeSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new StageloopError(
    'config',
    `${where}: ${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`,
  );
}

/** What runPipeline records with the run (its `record` option). */
/** A run's input for `task` under this recipe: a session run names its session and user, so history and memory see it. */
export function runInputOf(task: string, recipe: RunRecipe): RunInput {
  const { session } = recipe;
  return session === undefined ? { task } : { task, session: session.name, user: session.user };
}

export function recordOf(recipe: RunRecipe): JsonObject {
  return { recipe: JSON.parse(JSON.stringify(recipe)) as JsonObject };
}

/** The recipe a recorded run was made with; a run recorded from code has none: undefined. */
export function recordedRecipe(run: RunSummary): RunRecipe | undefined {
  const recorded = (run.options as { recipe?: unknown }).recipe;
  if (recorded === undefined) return undefined;
  const version = (recorded as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > recipeVersion) {
    throw new StageloopError(
      'conflict',
      `run ${run.runId} was recorded by a newer stageloop (recipe version ${version}; this one reads ${recipeVersion}): continue it with that version`,
    );
  }
  const input = recorded as RunRecipeInput;
  return makeRecipe({ ...input, guards: recordedGuards(input.guards) }, `run ${run.runId}'s recorded recipe`);
}

/** Recorded guard settings: the CLI recorded its flags' text before the settings were typed ("5000" is 5000). */
export function recordedGuards(guards: unknown): RunRecipeInput['guards'] {
  if (guards === null || typeof guards !== 'object' || Array.isArray(guards)) return guards as RunRecipeInput['guards'];
  return numbersOfText(guards as Record<string, unknown>) as RunRecipeInput['guards'];
}

/** The recorded recipe, or the bare built-in pipeline of that name for a run recorded from code (replay, resume). */
export function recipeOf(run: RunSummary): RunRecipe {
  return recordedRecipe(run) ?? makeRecipe({ pipeline: run.pipeline });
}
