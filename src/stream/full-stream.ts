// A run's events as fullStream parts. Text that may be the answer streams as it arrives; when it turns out not to be
// (the reply goes on to call a tool, is repaired, or a summary falls back), a `reset-step` part takes it back.
import type { RunEvent } from '../engine/stage.js';
import type { RunStatus, Usage } from '../engine/state.js';
import type { PartFinishReason, ResetReason, StreamPart } from './stream-parts.js';

interface TextPart {
  id: string;
  purpose: string;
  text: string;
}

interface StreamedInput {
  id: string;
  name: string;
  input: string;
}

const emptyUsage = (): Usage => ({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  estimated: false,
});

/** A run's finish reason in the AI SDK's words. */
export function runFinishReason(status: RunStatus, kind: string): PartFinishReason {
  if (status === 'failed') return 'error';
  if (status === 'interrupted' || status === 'cancelled') return 'other';
  if (kind === 'max_iterations' || kind === 'truncation' || kind.startsWith('budget_')) return 'length';
  if (kind.startsWith('guard_')) return 'content-filter';
  return 'stop';
}

const replyFinish: Record<string, PartFinishReason> = {
  stop: 'stop',
  tool_calls: 'tool-calls',
  length: 'length',
  content_filter: 'content-filter',
};

/** Approval events carry the arguments as JSON text or, once parsed by the approval port, as the object. */
export function inputOf(argumentsValue: unknown): unknown {
  if (typeof argumentsValue !== 'string') return argumentsValue;
  try {
    return JSON.parse(argumentsValue) as unknown;
  } catch {
    return argumentsValue;
  }
}

/** A reader of one run's events, in order, giving each event's parts (none for most). */
export function streamPartsReader(): (event: RunEvent) => StreamPart[] {
  let iteration = -1;
  let stepOpen = false;
  let stepUsage = emptyUsage();
  let stepFinish: PartFinishReason = 'stop';
  let text: TextPart | undefined;
  // Text that streamed and is not yet known to be the answer: confirmed by `answer` or `summary`, or taken back.
  let pending: TextPart[] = [];
  const reasoning = new Map<string, string>();
  let inputs = new Map<number, StreamedInput>();
  const notRun = new Map<string, StreamedInput>();

  const closeText = (): StreamPart[] => {
    if (text === undefined) return [];
    const closed = text;
    text = undefined;
    pending.push(closed);
    return [{ type: 'text-end', id: closed.id }];
  };
  const reset = (reason: ResetReason, purpose?: string): StreamPart[] => {
    const parts = closeText();
    const keep = pending.filter((part) => purpose !== undefined && part.purpose !== purpose);
    for (const part of pending)
      if (!keep.includes(part)) parts.push({ type: 'reset-step', id: part.id, text: part.text, reason });
    pending = keep;
    return parts;
  };
  const closeReasoning = (key?: string): StreamPart[] => {
    const parts: StreamPart[] = [];
    for (const [open, id] of reasoning)
      if (key === undefined || open === key) {
        parts.push({ type: 'reasoning-end', id });
        reasoning.delete(open);
      }
    return parts;
  };
  const dropInputs = (error: string): StreamPart[] => {
    const parts: StreamPart[] = [];
    for (const input of notRun.values())
      parts.push({ type: 'tool-input-error', toolCallId: input.id, toolName: input.name, input: input.input, error });
    notRun.clear();
    return parts;
  };
  const closeStep = (): StreamPart[] => {
    if (!stepOpen) return [];
    stepOpen = false;
    const parts = [...closeText(), ...closeReasoning(), ...dropInputs('the call was not run')];
    parts.push({ type: 'finish-step', iteration, finishReason: stepFinish, usage: stepUsage });
    return parts;
  };

  return (event) => {
    // An agent's run (called as a tool) is the calling tool's work: its parts are not this run's.
    if (event.agent !== undefined) return [];
    const parts: StreamPart[] = [];
    if (event.zone === 'iteration' && event.iteration !== iteration) {
      parts.push(...closeStep(), { type: 'start-step', iteration: event.iteration });
      iteration = event.iteration;
      [stepOpen, stepUsage, stepFinish] = [true, emptyUsage(), 'stop'];
    } else if (event.zone === 'finalize') parts.push(...closeStep());
    const key = `${event.step ?? ''}|${'purpose' in event.data ? String(event.data.purpose) : ''}`;
    if (event.type !== 'text_delta' && event.type !== 'reasoning_delta') parts.push(...closeText());
    if (event.type !== 'reasoning_delta') parts.push(...closeReasoning(key));
    switch (event.type) {
      case 'run_started':
        parts.push({ type: 'start', runId: event.runId, pipeline: event.data.pipeline });
        break;
      case 'text_delta': {
        if (!event.data.mayAnswer || event.data.text === '') break;
        if (text !== undefined && text.purpose !== event.data.purpose) parts.push(...closeText());
        if (text === undefined) {
          text = { id: `text-${event.seq}`, purpose: event.data.purpose, text: '' };
          parts.push({ type: 'text-start', id: text.id, purpose: text.purpose });
        }
        text.text += event.data.text;
        parts.push({ type: 'text-delta', id: text.id, text: event.data.text });
        break;
      }
      case 'reasoning_delta': {
        parts.push(...closeText());
        let id = reasoning.get(key);
        if (id === undefined) {
          id = `reasoning-${event.seq}`;
          reasoning.set(key, id);
          const part: StreamPart = { type: 'reasoning-start', id, purpose: event.data.purpose };
          parts.push(event.step === undefined ? part : { ...part, step: event.step });
        }
        parts.push({ type: 'reasoning-delta', id, text: event.data.text });
        break;
      }
      case 'tool_call_delta': {
        if (event.step === undefined) parts.push(...reset('tool-calls', event.data.purpose));
        // A plan step's call ids get the step's suffix after the reply (steps side by side): its input is not streamed.
        if (event.step !== undefined) break;
        let input = inputs.get(event.data.index);
        if (input === undefined && event.data.id !== undefined && event.data.name !== undefined) {
          input = { id: event.data.id, name: event.data.name, input: '' };
          inputs.set(event.data.index, input);
          parts.push({ type: 'tool-input-start', toolCallId: input.id, toolName: input.name });
        }
        if (input === undefined || event.data.argumentsDelta === '') break;
        input.input += event.data.argumentsDelta;
        parts.push({ type: 'tool-input-delta', toolCallId: input.id, delta: event.data.argumentsDelta });
        break;
      }
      case 'model_reply':
        addUsage(stepUsage, event.data.usage);
        stepFinish = replyFinish[event.data.finishReason] ?? 'other';
        if (event.step === undefined && event.data.toolCalls.length > 0) parts.push(...reset('tool-calls', 'think'));
        for (const input of inputs.values()) {
          parts.push({ type: 'tool-input-end', toolCallId: input.id });
          notRun.set(input.id, input);
        }
        inputs = new Map();
        break;
      case 'answer':
        pending = [];
        break;
      case 'repair_turn':
      case 'truncation_retry':
        parts.push(...reset('repair'), ...dropInputs('the reply was repaired: the call was not run'));
        break;
      case 'summary':
        if (event.data.path.endsWith('_without_model')) parts.push(...reset('not-used'));
        pending = [];
        break;
      case 'tool_call':
        notRun.delete(event.data.id);
        parts.push(
          withStep(event, {
            type: 'tool-call',
            toolCallId: event.data.id,
            toolName: event.data.name,
            input: inputOf(event.data.arguments),
          }),
        );
        break;
      case 'tool_result': {
        const call = { toolCallId: event.data.id, toolName: event.data.name, durationMs: event.data.durationMs };
        parts.push(
          withStep(
            event,
            event.data.ok
              ? { type: 'tool-result', ...call, output: event.data.result }
              : { type: 'tool-error', ...call, error: event.data.error },
          ),
        );
        break;
      }
      case 'approval_requested':
        notRun.delete(event.data.id);
        parts.push({
          type: 'tool-approval-request',
          approvalId: event.data.id,
          toolCallId: event.data.id,
          toolName: event.data.tool,
          input: inputOf(event.data.arguments),
          reason: event.data.reason,
        });
        break;
      case 'approval_decided': {
        const response: StreamPart = {
          type: 'tool-approval-response',
          approvalId: event.data.id,
          approved: event.data.approve,
          by: event.data.by,
        };
        parts.push(event.data.message === undefined ? response : { ...response, message: event.data.message });
        if (!event.data.approve)
          parts.push({ type: 'tool-output-denied', toolCallId: event.data.id, toolName: event.data.tool });
        break;
      }
      case 'run_finished': {
        const data = event.data;
        parts.push(...closeStep(), ...dropInputs('the call was not run'));
        if (data.status === 'cancelled') parts.push({ type: 'abort', reason: data.stopReason.message });
        if (data.status === 'failed') parts.push({ type: 'error', message: data.stopReason.message });
        parts.push({
          type: 'finish',
          status: data.status,
          finishReason: runFinishReason(data.status, data.stopReason.kind),
          stopReason: data.stopReason,
          answer: data.answer,
          usage: data.usage,
          iterations: data.iterations,
        });
        break;
      }
      default:
        break;
    }
    return parts;
  };
}

function withStep<Part extends StreamPart & { step?: string }>(event: RunEvent, part: Part): Part {
  return event.step === undefined ? part : { ...part, step: event.step };
}

function addUsage(total: Usage, usage: { inputTokens: number; outputTokens: number }): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  const more = usage as Partial<Usage>;
  total.cachedInputTokens += more.cachedInputTokens ?? 0;
  total.reasoningTokens += more.reasoningTokens ?? 0;
  if (more.estimated === true) total.estimated = true;
}
