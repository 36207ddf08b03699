// think's turn, a helper of think.ts: the think slot, what a turn settles before asking (the plan step's round, notes, the tools offered) and the request it sends; its own file so think.ts holds the reply handling.
import type { StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import type { ChatMessage, ChatRequest, FinishReason, ToolDefinition } from '../../src/model/types.js';
import type { TurnLimit } from '../guards/turn-limit-slot.js';
import { activeStep } from '../shared/plan-steps.js';
import { lastRoundNote, renderNotes } from '../shared/prompts.js';
import { emptyTurn } from '../shared/turn.js';
import { renderTurnMessages, type TurnContext } from './turn-context.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    step_last_round: { step: number; round: number; maxRounds: number };
  }
}

export interface ThinkSlot {
  /** Model calls made by think in this run. */
  calls: number;
  lastFinishReason: FinishReason | null;
  /** Re-asks after cut-off tool arguments in the latest turn. */
  truncationRetries: number;
  /** Repair turns in the latest turn (a tool call that could not be used), and in the whole run. */
  repairs?: number;
  repairsTotal?: number;
  /** The plan step the round count belongs to (null without a plan). */
  step: number | null;
  /** Reasoning rounds spent on that step. */
  stepRounds: number;
  /** Why think stopped the run, when it did. */
  stopReason?: string;
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    think: ThinkSlot;
  }
}

export interface ThinkConfig {
  readonly maxTruncationRetries: number;
  readonly maxRepairs: number;
  readonly maxStepToolRounds: number;
  readonly useTools: boolean;
  readonly keepReasoning: boolean;
  readonly settings: Pick<ChatRequest, 'temperature' | 'maxOutputTokens'>;
  /** Undefined: the request is the whole conversation. */
  readonly context: TurnContext | undefined;
}

/** What one turn decided before asking: the plan step, whether it is the step's last round, the tools offered. */
export interface ThinkTurn {
  readonly slot: ThinkSlot;
  readonly step: number | null;
  readonly lastRound: boolean;
  readonly tools: ToolDefinition[] | undefined;
  /** The spent limit that made this turn tool-less: its answer stops the run under that limit's kind. */
  readonly limit: TurnLimit | undefined;
  /** Repair exchanges of this turn, sent after the conversation but never kept in it (none on the usual turn). */
  repairs: ChatMessage[] | undefined;
}

export function startTurn(state: RunState, ctx: StageContext, config: ThinkConfig): ThinkTurn {
  const slot = (state.think ??= { calls: 0, lastFinishReason: null, truncationRetries: 0, step: null, stepRounds: 0 });
  const step = activeStep(state);
  if (step !== slot.step) {
    slot.step = step;
    slot.stepRounds = 0;
  }
  if (step !== null) slot.stepRounds++;
  const lastRound = step !== null && slot.stepRounds >= config.maxStepToolRounds;

  if (state.nextTurn.notes.length > 0) {
    state.messages.push({ role: 'user', content: renderNotes(state.nextTurn.notes) });
    state.nextTurn.notes = [];
  }
  if (lastRound) {
    state.messages.push({ role: 'user', content: lastRoundNote });
    ctx.emit('step_last_round', { step: (step ?? 0) + 1, round: slot.stepRounds, maxRounds: config.maxStepToolRounds });
  }
  const tools =
    config.useTools && !lastRound && !state.nextTurn.withoutTools ? ctx.deps.tools?.definitions() : undefined;
  const limit = state.nextTurn.limit;
  state.nextTurn.withoutTools = false;
  if (limit !== undefined) delete state.nextTurn.limit;
  state.turn = emptyTurn();
  slot.truncationRetries = 0;
  if (slot.repairs !== undefined) slot.repairs = 0;
  return {
    slot,
    step,
    lastRound,
    tools: tools !== undefined && tools.length > 0 ? tools : undefined,
    limit,
    repairs: undefined,
  };
}

/**
 * The request: the conversation as rendered for this turn (older tool results shortened, stages/loop/turn-context.ts; a
 * copy, so a model keeping it sees no later change), any repair exchange, and the offered tools. state.messages keeps
 * the whole transcript.
 */
export function requestOf(state: RunState, config: ThinkConfig, turn: ThinkTurn): ChatRequest {
  const settings = config.settings;
  const tools = turn.tools;
  const rendered = config.context === undefined ? state.messages : renderTurnMessages(state.messages, config.context);
  const repairs = turn.repairs;
  const messages =
    repairs !== undefined
      ? rendered.concat(repairs)
      : rendered === state.messages
        ? state.messages.slice()
        : (rendered as ChatMessage[]);
  const request: ChatRequest = { messages, purpose: repairs === undefined ? 'think' : 'think_repair' };
  if (tools !== undefined && tools.length > 0) request.tools = tools;
  // Assigned, not spread: a spread in a literal is a runtime call on every turn.
  if (settings.temperature !== undefined) request.temperature = settings.temperature;
  if (settings.maxOutputTokens !== undefined) request.maxOutputTokens = settings.maxOutputTokens;
  return request;
}
