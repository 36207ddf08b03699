// The AI SDK's UI message stream (v1): POST /v1/chat takes the body `useChat`'s DefaultChatTransport sends and answers
// with the chunks `readUIMessageStream` reads: text, tool parts, reasoning for stage progress, data-plan, finish.
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { RunResult } from '../../engine/run-result.js';
import type { RunEvent } from '../../engine/stage.js';
import { approveToolsSchema } from '../request-schemas.js';
import { protocolBody, protocolErrorResponse } from './protocol-errors.js';
import { progressLineOf } from './progress-text.js';
import { RawLine, runSse } from './run-sse.js';
import {
  answerTextOf,
  runIdHeader,
  startProtocolRun,
  taskOfConversation,
  wasCutShort,
  type ProtocolRun,
} from './protocol-runs.js';
import type { StartRunServices } from '../start-run.js';
import { answerTextSplitter } from '../../stream/answer-text.js';

export const uiMessageStreamHeader = 'x-vercel-ai-ui-message-stream';

// The whole body DefaultChatTransport sends (id, messages, trigger, messageId) plus anything the app adds; only
// `pipeline` (a body field the app may set) is read besides the messages.
const chatRequestSchema = z.looseObject({
  id: z.string().optional(),
  messages: z
    .array(
      z.looseObject({
        role: z.string(),
        parts: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).optional(),
      }),
      {
        error: 'messages must be an array of UI messages ({ id, role, parts })',
      },
    )
    .min(1, 'messages must not be empty'),
  messageId: z.string().optional(),
  pipeline: z.string().optional(),
  /** Tools whose calls pause for a person's decision: the stream shows the SDK's approval parts. */
  approveTools: approveToolsSchema.optional(),
});

type Chunk = Record<string, unknown> & { type: string };

function finishReasonOf(result: RunResult): string {
  if (result.status === 'failed') return 'error';
  if (result.status === 'interrupted' || result.status === 'cancelled') return 'other';
  if (wasCutShort(result)) return 'length';
  if (result.stopReason.kind.startsWith('guard_')) return 'content-filter';
  return 'stop';
}

function inputOf(argumentsText: string): unknown {
  try {
    return JSON.parse(argumentsText);
  } catch {
    return argumentsText;
  }
}

/** Turns run events into chunks, keeping what spans events: the open text part, the step, the answer so far. */
export class ChunkWriter {
  #textId: string | undefined;
  #sinceToolTurn = '';
  #iteration = -1;
  #stepOpen = false;
  readonly #split = answerTextSplitter();

  chunksOf(event: RunEvent): Chunk[] {
    // An agent's run (called as a tool) is part of the calling tool's work: its steps, text, tool calls and approval
    // questions are not the caller's (act asks the caller's approval itself), so it shows only as reasoning lines.
    if (event.agent !== undefined) return reasoningChunks(event);
    const chunks: Chunk[] = [];
    if (event.zone === 'iteration' && event.iteration !== this.#iteration) {
      chunks.push(...this.#closeStep(), { type: 'start-step' });
      this.#iteration = event.iteration;
      this.#stepOpen = true;
    }
    // Only answer text is a text part; a preamble before a tool call is a reasoning part (the AI SDK's place for it).
    const piece = (): Chunk[] => this.#textChunks(event);
    if (event.type !== 'model_reply') chunks.push(...piece());
    switch (event.type) {
      case 'model_reply':
        chunks.push(...piece());
        chunks.push(...this.#closeText());
        if (event.data.toolCalls.length > 0) this.#sinceToolTurn = '';
        break;
      case 'tool_call':
        chunks.push({
          type: 'tool-input-available',
          toolCallId: event.data.id,
          toolName: event.data.name,
          input: inputOf(event.data.arguments),
        });
        break;
      case 'tool_result':
        chunks.push(
          event.data.ok
            ? { type: 'tool-output-available', toolCallId: event.data.id, output: event.data.result }
            : { type: 'tool-output-error', toolCallId: event.data.id, errorText: event.data.error.message },
        );
        break;
      case 'approval_requested':
        // The SDK's approval parts need the tool part first: the call has not run, so act reported nothing yet.
        chunks.push(
          {
            type: 'tool-input-available',
            toolCallId: event.data.id,
            toolName: event.data.tool,
            input: inputOf(event.data.arguments),
          },
          { type: 'tool-approval-request', approvalId: event.data.id, toolCallId: event.data.id },
        );
        break;
      case 'plan_created':
        chunks.push({ type: 'data-plan', id: 'plan', data: { steps: event.data.steps, current: 1 } });
        break;
      case 'plan_updated':
        chunks.push({ type: 'data-plan', id: 'plan', data: { steps: event.data.steps, current: event.data.current } });
        break;
      default:
        break;
    }
    if (event.type !== 'tool_call' && event.type !== 'tool_result' && event.type !== 'approval_requested')
      chunks.push(...reasoningChunks(event));
    return chunks;
  }

  #textChunks(event: RunEvent): Chunk[] {
    const piece = this.#split(event);
    if (piece?.preamble !== undefined) {
      const id = `reasoning-${event.seq}-preamble`;
      return [
        { type: 'reasoning-start', id },
        { type: 'reasoning-delta', id, delta: piece.preamble },
        { type: 'reasoning-end', id },
      ];
    }
    if (piece?.answer === undefined) return [];
    const chunks: Chunk[] = [];
    if (this.#textId === undefined) {
      this.#textId = `text-${event.seq}`;
      chunks.push({ type: 'text-start', id: this.#textId });
    }
    for (const text of piece.answer) {
      this.#sinceToolTurn += text;
      chunks.push({ type: 'text-delta', id: this.#textId, delta: text });
    }
    return chunks;
  }

  /** The last chunks: the answer when no text part carried it, the step's end, the pause's data part, finish. */
  endChunks(result: RunResult): Chunk[] {
    const chunks = this.#closeText();
    const answer = answerTextOf(result);
    if (result.status === 'failed') {
      chunks.push({ type: 'error', errorText: `run ${result.runId} failed: ${result.stopReason.message}` });
    } else if (this.#sinceToolTurn.trim() !== answer.trim()) {
      const id = `text-answer-${result.runId}`;
      chunks.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: answer }, { type: 'text-end', id });
    }
    chunks.push(...this.#closeStep());
    if (result.status === 'interrupted') {
      chunks.push({
        type: 'data-approval',
        id: 'approval',
        data: { runId: result.runId, pending: result.pending ?? [], decisions: `/v1/runs/${result.runId}/decisions` },
      });
    }
    const usage = {
      inputTokens: result.usage.inputTokens,
      outputTokens: result.usage.outputTokens,
      totalTokens: result.usage.inputTokens + result.usage.outputTokens,
    };
    chunks.push({
      type: 'finish',
      finishReason: finishReasonOf(result),
      messageMetadata: { runId: result.runId, status: result.status, usage },
    });
    return chunks;
  }

  #closeText(): Chunk[] {
    if (this.#textId === undefined) return [];
    const id = this.#textId;
    this.#textId = undefined;
    return [{ type: 'text-end', id }];
  }

  #closeStep(): Chunk[] {
    if (!this.#stepOpen) return [];
    this.#stepOpen = false;
    return [...this.#closeText(), { type: 'finish-step' }];
  }
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

export function uiMessageStreamRoutes(services: StartRunServices): Hono {
  const app = new Hono();
  app.onError((error, context) => protocolErrorResponse(context, error));
  // useChat({ resume: true }) asks for a chat's running stream on reload: none is kept, so 204 (nothing to resume).
  app.get('/v1/chat/:id/stream', (context) => context.body(null, 204));
  app.post('/v1/chat', async (context) => {
    const request = await protocolBody(context, chatRequestSchema, 'the body useChat sends ({ id, messages })');
    const turns = request.messages.map((message) => ({
      role: message.role,
      text: (message.parts ?? [])
        .flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : []))
        .join('\n'),
    }));
    const pipeline = request.pipeline ?? services.defaultPipeline;
    const run = await startProtocolRun(services, {
      pipeline,
      task: taskOfConversation(turns),
      ...(request.approveTools !== undefined && { approveTools: request.approveTools }),
    });
    return streamChunks(context, run, request.messageId);
  });
  return app;
}

function streamChunks(context: Context, run: ProtocolRun, messageId: string | undefined): Response {
  context.header(uiMessageStreamHeader, 'v1');
  context.header('x-accel-buffering', 'no');
  context.header(runIdHeader, run.runId);
  return runSse(context, run, 'chat', async function* ({ events, gone }) {
    yield { type: 'start', messageId: messageId ?? `run-${run.runId}`, messageMetadata: { runId: run.runId } };
    const writer = new ChunkWriter();
    for await (const event of events) {
      for (const chunk of writer.chunksOf(event)) yield chunk;
    }
    if (gone.aborted) return;
    const result = await run.result.catch((error: unknown) => error);
    if (result instanceof Error || result === undefined) {
      yield {
        type: 'error',
        errorText: result instanceof Error ? result.message : `run ${run.runId} ended without a result`,
      };
    } else {
      for (const chunk of writer.endChunks(result as RunResult)) yield chunk;
    }
    yield new RawLine('[DONE]');
  });
}
