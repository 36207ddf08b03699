// handoff: another pipeline takes over the rest of the run. It is offered to the model as the tool
// `transfer_to_NAME`; a call starts the target's run (a child run, exactly as an agentTool call: the caller's budgets,
// cancel, depth limit, events, trace and journal) with the conversation so far, and the handoff stage ends the
// caller's loop with the target's answer. The tool result is the target's answer, so a replay serves it as recorded.
import { z } from 'zod';
import type { JsonObject } from '../common/json.js';
import type { Pipeline } from '../engine/pipeline.js';
import type { Deps } from '../engine/stage.js';
import type { RunInput } from '../engine/state.js';
import type { ChatMessage } from '../model/types.js';
import { wantToolCallers, type ToolCaller } from '../tools/call-scope.js';
import { defineTool, type Tool, type ToolEffects } from '../tools/define-tool.js';
import { ToolFailure } from '../tools/tool-failure.js';
import { AGENT_DEFAULTS, callAgent } from './agent-tool.js';
import { HANDOFF_TOOL_PREFIX, type HandedConversation } from './handoff-conversation.js';

/** What the target agent is given: the task (its run's task) and the conversation after the caller's system prompt. */
export interface HandoffInputData {
  task: string;
  /** The caller's messages after its system prompt (the user's task first), up to the turn that handed off. */
  messages: readonly ChatMessage[];
}

/** Changes what the target sees: drop old turns, tool traffic, or pass the task alone (`messages: []`). */
export type HandoffInputFilter = (data: HandoffInputData) => HandoffInputData;

export interface HandoffOptions {
  /** The target agent's name: the tool is `transfer_to_NAME`, and the run's answer is said to be NAME's. */
  name: string;
  /** When to hand off to it: the calling model chooses by this. */
  description: string;
  pipeline: Pipeline;
  /** The target's own ports: its model (required) and tools. */
  deps?: Partial<Deps>;
  inputFilter?: HandoffInputFilter;
  /** How many agents deep a chain may go (default 3), counting handoffs and agent tools alike. */
  maxDepth?: number;
  /** The share of the caller's remaining token budget the target may spend (default 1: all that is left). */
  budgetShare?: number;
  /** Default 10 minutes, as an agent tool's. */
  timeoutMs?: number;
  /** Default `write`, as an agent tool's. */
  effects?: ToolEffects;
}

/** The tool name a handoff to `name` is offered under. */
export function handoffToolName(name: string): string {
  return `${HANDOFF_TOOL_PREFIX}${name}`;
}

export function handoff(options: HandoffOptions): Tool {
  const settings = { ...AGENT_DEFAULTS, ...options };
  if (!(Number.isInteger(settings.maxDepth) && settings.maxDepth >= 1))
    throw new TypeError(`handoff "${options.name}": maxDepth must be a whole number of at least 1`);
  if (!(settings.budgetShare > 0 && settings.budgetShare <= 1))
    throw new TypeError(`handoff "${options.name}": budgetShare must be a fraction above 0 and at most 1`);
  wantToolCallers();
  const filter = options.inputFilter ?? ((data: HandoffInputData) => data);
  const inputOf = (caller: ToolCaller | undefined, callId: string | undefined) =>
    handedInput(options.name, caller, callId, filter);
  return defineTool({
    name: handoffToolName(options.name),
    description: `Hand the conversation to the ${options.name} agent, which then answers the user in your place: ${options.description}`,
    parameters: z.object({}),
    timeoutMs: settings.timeoutMs,
    effects: settings.effects ?? 'write',
    // Run again, the call finds its child run by id: a finished one gives its outcome, another resumes (child-run.ts).
    idempotent: true,
    execute: (_args, ctx) => callAgent({ ...settings, inputOf }, { task: '' }, ctx),
  });
}

/** The target's run input: the caller's task and its conversation up to the handing turn, through the filter. */
function handedInput(
  name: string,
  caller: ToolCaller | undefined,
  callId: string | undefined,
  filter: HandoffInputFilter,
): RunInput {
  if (caller?.task === undefined || caller.messages === undefined) {
    throw new ToolFailure(`the handoff to "${name}" needs a calling run: call it from a pipeline's act stage`, {
      kind: 'refused',
    });
  }
  const messages = caller.messages;
  const handing = messages.findLastIndex(
    (message) => message.role === 'assistant' && message.toolCalls?.some((call) => call.id === callId) === true,
  );
  const turn = handing === -1 ? undefined : messages[handing];
  const calls = turn?.role === 'assistant' ? (turn.toolCalls ?? []) : [];
  const first = calls.find((call) => call.name.startsWith(HANDOFF_TOOL_PREFIX));
  // The run goes to one agent: the first handoff of a turn is taken, the others are refused before they start.
  if (first !== undefined && first.id !== callId) {
    throw new ToolFailure(`the handoff to "${name}" was not made: this turn already hands off with ${first.name}`, {
      kind: 'refused',
    });
  }
  const before = handing === -1 ? messages : messages.slice(0, handing);
  // A copy: a filter that edits what it is given leaves the calling run's conversation as it was.
  const data = filter({
    task: caller.task,
    messages: structuredClone(before.filter((message) => message.role !== 'system')),
  });
  const conversation: HandedConversation = {
    from: caller.deps.agent?.path.join('/') ?? caller.pipeline,
    messages: [...data.messages],
  };
  return { task: data.task, options: { handoff: JSON.parse(JSON.stringify(conversation)) as JsonObject } };
}
