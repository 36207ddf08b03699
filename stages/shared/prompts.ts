// Prompt texts and the context renderer. What the model sees is composed from the state, not left to accumulate.
import type { RunState } from '../../src/engine/state.js';
import type { ChatMessage, ToolDefinition } from '../../src/model/types.js';
import type { PlanSlot, StepResult } from '../plan/plan-slot.js';
import type {} from './context-slot.js';
import type {} from '../session/history-slot.js';
import { historyMessages } from '../../src/sessions/render.js';
import { dependencyClosure } from './plan-steps.js';
import { handedMessages } from '../../src/agents/handoff-conversation.js';
import { clientConversation, withClientSystem } from '../../src/engine/client-conversation.js';

export const defaultInstructions =
  'You are a careful assistant. Decide one move at a time: either call a tool or give the answer. ' +
  'Prefer a tool whenever it gives a more reliable result than reasoning alone (use the calculator for arithmetic). ' +
  'Call tools only with arguments that match their schema. When you have the answer, reply with it in plain text and call no tool.';

export function renderSystemPrompt(
  instructions: string,
  tools: readonly ToolDefinition[],
  facts: readonly string[],
): string {
  const parts = [instructions];
  if (tools.length > 0)
    parts.push(`Tools you can call:\n${tools.map((tool) => `- ${tool.name}: ${tool.description}`).join('\n')}`);
  if (facts.length > 0) parts.push(`Facts you can rely on:\n${facts.map((fact) => `- ${fact}`).join('\n')}`);
  return parts.join('\n\n');
}

/**
 * The conversation the next reasoning call starts from: the system prompt, the session's earlier turns as user and
 * assistant messages, then either the task (no plan) or, inside a plan, a brief of the goal, the plan, the results
 * the current step needs and the step itself. A run handed a conversation (a handoff) has it in place of the task.
 */
export function renderMessages(state: RunState, stepIndex?: number): ChatMessage[] {
  const system = withClientSystem(
    state.context?.systemPrompt ?? renderSystemPrompt(defaultInstructions, [], []),
    state.input,
  );
  const plan = state.plan;
  const index = stepIndex ?? plan?.current ?? 0;
  const user =
    plan !== undefined && index < plan.steps.length ? stepBrief(state.input.task, plan, index) : state.input.task;
  const session = state.history;
  // A client's earlier turns (a Chat Completions request) follow the session's, each in its own role.
  const earlier = [
    ...(session === undefined ? [] : historyMessages(session.summary, session.turns)),
    ...clientConversation(state.input).turns,
  ];
  // A run handed off to (a handoff's target) goes on from the conversation it was given, the task in it.
  const handed = handedMessages(state.input);
  if (handed !== undefined && plan === undefined) return [{ role: 'system', content: system }, ...earlier, ...handed];
  return [{ role: 'system', content: system }, ...earlier, ...(handed ?? []), { role: 'user', content: user }];
}

/** A step's brief: its description, the results of the steps it depends on (directly or not), its bound tool. */
export function stepBrief(task: string, plan: PlanSlot, index = plan.current): string {
  const step = plan.steps[index]!;
  const needed = dependencyClosure(plan, index);
  const results = plan.results.filter((result) => needed.has(result.id));
  return [
    `Goal: ${task}`,
    `Plan:\n${renderPlan(plan)}`,
    `Results of the steps it depends on:\n${results.length > 0 ? renderResults(results) : 'none'}`,
    `Current step (${index + 1} of ${plan.steps.length}): ${step.description}`,
    step.tool !== undefined ? `This step is bound to the tool "${step.tool}": use it first.` : '',
    'Work only on the current step. Use tools when they help. When the step is done, reply with its result in plain text and call no tool.',
  ]
    .filter((part) => part !== '')
    .join('\n\n');
}

export function renderPlan(plan: PlanSlot): string {
  const chain = plan.steps.every((step, index) =>
    index === 0
      ? step.dependsOn.length === 0
      : step.dependsOn.length === 1 && step.dependsOn[0] === plan.steps[index - 1]!.id,
  );
  return plan.steps
    .map((step, index) => {
      const needs = chain || step.dependsOn.length === 0 ? '' : ` (after ${step.dependsOn.join(', ')})`;
      return `${index + 1}. [${step.status}] ${step.id}: ${step.description}${needs}`;
    })
    .join('\n');
}

export function renderResults(results: readonly StepResult[]): string {
  return results
    .map(
      (result) => `Step ${result.step} (${result.outcome}): ${result.description}\nResult: ${oneLine(result.output)}`,
    )
    .join('\n');
}

export const composeInstructions =
  'You write the final answer to the task from the results of the plan steps below. ' +
  'Answer the task directly and briefly, using only these results. Do not call tools.';

export const partialInstructions =
  'The run stopped before the task was finished. Using only the work below, write the best answer you can, ' +
  'and say plainly what is missing or uncertain. Do not call tools.';

export const truncationHint =
  'Your previous reply was cut off while writing tool-call arguments, so no tool was run. ' +
  'Call the tool again with shorter arguments, or fewer calls in one reply.';

export const lastRoundNote =
  'This is your last round for the current step: do not call tools. Finish the step now from what you already have and reply with its result.';

export function renderNotes(notes: readonly string[]): string {
  return `Notes from the runtime:\n${notes.map((note) => `- ${note}`).join('\n')}`;
}

export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
