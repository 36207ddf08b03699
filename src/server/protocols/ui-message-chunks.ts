// Run events as the AI SDK's UI message chunks, through fullStream's parts (src/stream/full-stream.ts): answer text as
// it arrives, reasoning, tool input pieces, tool results, approvals, steps with usage, abort; progress lines as reasoning.
import type { RunResult } from '../../engine/run-result.js';
import type { RunEvent } from '../../engine/stage.js';
import type { Usage } from '../../engine/state.js';
import { runFinishReason, streamPartsReader } from '../../stream/full-stream.js';
import type { StreamPart } from '../../stream/stream-parts.js';
import { progressLineOf } from './progress-text.js';
import { answerTextOf } from './protocol-runs.js';

export type Chunk = Record<string, unknown> & { type: string };

/** Chunks about the step itself, not parts of the message: never sent again after a reset. */
const stepMarks = new Set(['start-step', 'finish-step', 'reset-step', 'message-metadata']);

/**
 * The AI SDK major version of the client reading the stream. 6 (the default) reads neither `reset-step` nor
 * `tool-approval-response` (its chunk schema refuses unknown types): a 6 client keeps a preamble as text, as the
 * AI SDK's own streamText does; 7 gets both.
 */
export type AiSdkMajor = 6 | 7;

/** Turns run events into chunks, keeping what spans events: the step's chunks, the text kept so far, the usage. */
export class ChunkWriter {
  readonly #parts = streamPartsReader();
  readonly #client: AiSdkMajor;
  /** Text parts since the last tool call that were not taken back, by id: the answer as streamed. */
  #kept = new Map<string, string>();
  /** Every chunk since the step began: a `reset-step` removes them, so the ones still meant are sent again. */
  #sinceStep: Chunk[] = [];
  readonly #usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

  constructor(client: AiSdkMajor = 6) {
    this.#client = client;
  }

  chunksOf(event: RunEvent): Chunk[] {
    // An agent's run (called as a tool) is part of the calling tool's work: its steps, text, tool calls and approval
    // questions are not the caller's (act asks the caller's approval itself), so it shows only as reasoning lines.
    if (event.agent !== undefined) return reasoningChunks(event);
    const chunks: Chunk[] = [];
    const add = (more: Chunk[]): void => {
      chunks.push(...more);
      this.#sinceStep.push(...more);
    };
    for (const part of this.#parts(event)) add(this.#chunksOfPart(part));
    if (event.type === 'plan_created')
      add([{ type: 'data-plan', id: 'plan', data: { steps: event.data.steps, current: 1 } }]);
    if (event.type === 'plan_updated')
      add([{ type: 'data-plan', id: 'plan', data: { steps: event.data.steps, current: event.data.current } }]);
    if (event.type !== 'tool_call' && event.type !== 'tool_result' && event.type !== 'approval_requested')
      add(reasoningChunks(event));
    return chunks;
  }

  #chunksOfPart(part: StreamPart): Chunk[] {
    switch (part.type) {
      case 'start-step':
        this.#sinceStep = [];
        return [{ type: 'start-step' }];
      case 'finish-step':
        this.#usage.inputTokens += part.usage.inputTokens;
        this.#usage.outputTokens += part.usage.outputTokens;
        this.#usage.totalTokens = this.#usage.inputTokens + this.#usage.outputTokens;
        return [{ type: 'finish-step' }, { type: 'message-metadata', messageMetadata: { usage: { ...this.#usage } } }];
      case 'text-start':
        this.#kept.set(part.id, '');
        return [{ type: 'text-start', id: part.id }];
      case 'text-delta':
        this.#kept.set(part.id, (this.#kept.get(part.id) ?? '') + part.text);
        return [{ type: 'text-delta', id: part.id, delta: part.text }];
      case 'text-end':
        return [{ type: 'text-end', id: part.id }];
      case 'reset-step':
        this.#kept.delete(part.id);
        return this.#client === 7 ? this.#resetStep(part.id) : [];
      case 'reasoning-start':
        return [{ type: 'reasoning-start', id: part.id }];
      case 'reasoning-delta':
        return [{ type: 'reasoning-delta', id: part.id, delta: part.text }];
      case 'reasoning-end':
        return [{ type: 'reasoning-end', id: part.id }];
      case 'tool-input-start':
        return [{ type: 'tool-input-start', toolCallId: part.toolCallId, toolName: part.toolName }];
      case 'tool-input-delta':
        return [{ type: 'tool-input-delta', toolCallId: part.toolCallId, inputTextDelta: part.delta }];
      case 'tool-input-error':
        return [
          {
            type: 'tool-input-error',
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
            errorText: part.error,
          },
        ];
      case 'tool-call':
        this.#kept.clear();
        return [
          { type: 'tool-input-available', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input },
        ];
      case 'tool-result':
        return [{ type: 'tool-output-available', toolCallId: part.toolCallId, output: part.output }];
      case 'tool-error':
        return [{ type: 'tool-output-error', toolCallId: part.toolCallId, errorText: part.error.message }];
      case 'tool-approval-request':
        // The SDK's approval parts need the tool part first: the call has not run, so act reported nothing yet.
        return [
          { type: 'tool-input-available', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input },
          { type: 'tool-approval-request', approvalId: part.approvalId, toolCallId: part.toolCallId },
        ];
      case 'tool-approval-response':
        if (this.#client === 6) return [];
        return [
          {
            type: 'tool-approval-response',
            approvalId: part.approvalId,
            approved: part.approved,
            ...(part.message !== undefined && { reason: part.message }),
          },
        ];
      case 'tool-output-denied':
        return [{ type: 'tool-output-denied', toolCallId: part.toolCallId }];
      case 'abort':
        return [{ type: 'abort', reason: part.reason }];
      default:
        // start, tool-input-end, error and finish: the route writes the start, endChunks the error and the finish.
        return [];
    }
  }

  /** The AI SDK's reset-step removes every part since the step began: the ones that still stand are sent again. */
  #resetStep(textId: string): Chunk[] {
    const again = this.#sinceStep.filter((chunk) => chunk.id !== textId && !stepMarks.has(chunk.type));
    this.#sinceStep = [];
    return [{ type: 'reset-step' }, ...again];
  }

  /** The last chunks: the answer when no text part carried it, the pause's data part, finish with the usage. */
  endChunks(result: RunResult): Chunk[] {
    const chunks: Chunk[] = [];
    const answer = answerTextOf(result);
    const streamed = [...this.#kept.values()].join('');
    if (result.status === 'failed') {
      chunks.push({ type: 'error', errorText: `run ${result.runId} failed: ${result.stopReason.message}` });
    } else if (streamed.trim() !== answer.trim()) {
      const id = `text-answer-${result.runId}`;
      chunks.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: answer }, { type: 'text-end', id });
    }
    if (result.status === 'interrupted') {
      chunks.push({
        type: 'data-approval',
        id: 'approval',
        data: { runId: result.runId, pending: result.pending ?? [], decisions: `/v1/runs/${result.runId}/decisions` },
      });
    }
    chunks.push({
      type: 'finish',
      finishReason: runFinishReason(result.status, result.stopReason.kind),
      messageMetadata: { runId: result.runId, status: result.status, usage: totalOf(result.usage) },
    });
    return chunks;
  }
}

function totalOf(usage: Usage): { inputTokens: number; outputTokens: number; totalTokens: number } {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
  };
}

/** An event's progress line as a reasoning part, or nothing when it has none. */
function reasoningChunks(event: RunEvent): Chunk[] {
  const line = progressLineOf(event);
  if (line === undefined) return [];
  const id = `reasoning-${event.seq}`;
  return [
    { type: 'reasoning-start', id },
    { type: 'reasoning-delta', id, delta: event.agent === undefined ? line : `${event.agent}: ${line}` },
    { type: 'reasoning-end', id },
  ];
}
