// The model a stage needs, and one model call for think and summarize: streamed as text_delta / tool_call_delta events when the model can stream and
// someone listens, otherwise the plain call at the plain call's cost.
import type { StageContext, StageNeeds } from '../../src/engine/stage.js';
import type {
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  ChatStreamEvent,
  ToolCall,
} from '../../src/model/types.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    /** A piece of a reply's text as it arrives; `mayAnswer`: the reply may become the final answer (no plan step is running). */
    text_delta: { purpose: string; text: string; mayAnswer: boolean };
    /** A piece of the model's reasoning as it streams (never part of the answer). */
    reasoning_delta: { purpose: string; text: string };
    /** A piece of tool call `index`: its id and name come with its first piece, its arguments text in pieces. */
    tool_call_delta: { purpose: string; index: number; id?: string; name?: string; argumentsDelta: string };
  }
}

/** What a stage that asks the model needs: a run without one fails when it is assembled (src/engine/stage-needs.ts). */
export const modelNeeded: StageNeeds = Object.freeze({ deps: Object.freeze(['model'] as const) });

/** The run's model, or the one-line error saying the stage needs one. */
export function requireModel(ctx: StageContext, stage: string): ChatModel {
  const model = ctx.deps.model;
  if (model === undefined) throw new Error(`stage "${stage}" needs a model: pass deps.model to runPipeline`);
  return model;
}

export function callModel(
  model: ChatModel,
  request: ChatRequest,
  ctx: StageContext,
  signal: AbortSignal | undefined,
  mayAnswer: boolean,
): Promise<ChatResponse> {
  // Streaming costs more than the plain call: only worth it when someone listens to the pieces.
  if (ctx.deps.onEvent === undefined || model.chatStream === undefined) return model.chat(request, signal);
  const purpose = request.purpose;
  const onPiece = (event: ChatStreamEvent): void => {
    if (event.type === 'text') {
      ctx.emit('text_delta', { purpose, text: event.delta, mayAnswer });
      return;
    }
    if (event.type === 'reasoning') {
      ctx.emit('reasoning_delta', { purpose, text: event.delta });
      return;
    }
    const data: { purpose: string; index: number; id?: string; name?: string; argumentsDelta: string } = {
      purpose,
      index: event.index,
      argumentsDelta: event.argumentsDelta,
    };
    if (event.id !== undefined) data.id = event.id;
    if (event.name !== undefined) data.name = event.name;
    ctx.emit('tool_call_delta', data);
  };
  return model.chatStream(request, onPiece, signal);
}

/** A request's temperature when the stage's options set one (a model's own default otherwise). */
export function temperatureOf(options: { temperature?: number }): { temperature?: number } {
  return options.temperature === undefined ? {} : { temperature: options.temperature };
}

/**
 * The assistant message a reply becomes, with what its provider needs back (`replay`: the adapter that wrote it sends
 * it on the next request; any other adapter ignores it). Its readable reasoning stays in the journal, events and spans,
 * out of the conversation, unless `keepReasoning` (a model that wants its thoughts back).
 */
export function assistantMessage(
  response: ChatResponse,
  content: string,
  toolCalls?: ToolCall[],
  keepReasoning = false,
): ChatMessage {
  const message: Extract<ChatMessage, { role: 'assistant' }> = { role: 'assistant', content };
  if (toolCalls !== undefined) message.toolCalls = toolCalls;
  if (keepReasoning && response.reasoning !== undefined) message.reasoning = response.reasoning;
  if (response.replay !== undefined) message.replay = response.replay;
  return message;
}
