// The typed parts of streamRun's fullStream: a run's events read as a UI reads a reply (text, reasoning, tool input,
// tool results, steps, finish), in the AI SDK's part names so an app that knows one knows the other.
import type { Usage } from '../engine/state.js';
import type { RunStatus } from '../engine/state.js';

/** Why streamed text was taken back: it preceded a tool call, was followed by a repair turn, or was not used. */
export type ResetReason = 'tool-calls' | 'repair' | 'not-used';

/** How a run or a step ended, in the AI SDK's words. */
export type PartFinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other';

export type StreamPart =
  | { type: 'start'; runId: string; pipeline: string }
  /** An iteration begins (the AI SDK's step). */
  | { type: 'start-step'; iteration: number }
  | { type: 'finish-step'; iteration: number; finishReason: PartFinishReason; usage: Usage }
  /** Text that may be the answer (`purpose`: the model call writing it, think or summarize). */
  | { type: 'text-start'; id: string; purpose: string }
  | { type: 'text-delta'; id: string; text: string }
  | { type: 'text-end'; id: string }
  /** Takes back the text part `id` already streamed: it was not the answer (a preamble before a tool call, say). */
  | { type: 'reset-step'; id: string; text: string; reason: ResetReason }
  | { type: 'reasoning-start'; id: string; purpose: string; step?: string }
  | { type: 'reasoning-delta'; id: string; text: string }
  | { type: 'reasoning-end'; id: string }
  /** A tool call's arguments as the model writes them (calls outside plan steps). */
  | { type: 'tool-input-start'; toolCallId: string; toolName: string }
  | { type: 'tool-input-delta'; toolCallId: string; delta: string }
  | { type: 'tool-input-end'; toolCallId: string }
  /** A streamed call that was never run (its reply was repaired or the run moved on). */
  | { type: 'tool-input-error'; toolCallId: string; toolName: string; input: string; error: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; step?: string }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: string; durationMs: number; step?: string }
  | {
      type: 'tool-error';
      toolCallId: string;
      toolName: string;
      error: { kind: string; message: string };
      durationMs: number;
      step?: string;
    }
  | {
      type: 'tool-approval-request';
      approvalId: string;
      toolCallId: string;
      toolName: string;
      input: unknown;
      reason: string;
    }
  | { type: 'tool-approval-response'; approvalId: string; approved: boolean; by: string; message?: string }
  | { type: 'tool-output-denied'; toolCallId: string; toolName: string }
  /** The run was cancelled: `reason` says by whom or why. A `finish` part follows. */
  | { type: 'abort'; reason: string }
  | { type: 'error'; message: string }
  | {
      type: 'finish';
      status: RunStatus;
      finishReason: PartFinishReason;
      stopReason: { kind: string; stage: string | null; message: string };
      answer: string | null;
      usage: Usage;
      iterations: number;
    };

export type StreamPartType = StreamPart['type'];
