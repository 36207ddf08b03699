// OpenAI-compatible Chat Completions: POST /v1/chat/completions runs the pipeline named by `model` on the messages
// and answers in the Chat Completions shape (SSE chunks and `[DONE]` when streaming); GET /v1/models lists pipelines.
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { httpStatusOf, StageloopError } from '../../common/stageloop-error.js';
import { asStageloopError, protocolBody } from './protocol-errors.js';
import type { RunResult } from '../../engine/run-result.js';
import type { Usage } from '../../engine/state.js';
import { progressLineOf } from './progress-text.js';
import { RawLine, runSse } from './run-sse.js';
import { answerTextSplitter } from '../../stream/answer-text.js';
import {
  agentNamedBy,
  answerTextOf,
  runIdHeader,
  startProtocolRun,
  structuredConversation,
  wasCutShort,
  type ProtocolRun,
} from './protocol-runs.js';
import type { StartRunServices } from '../start-run.js';
import { agentNameSchema } from '../request-schemas.js';

const contentSchema = z.union([
  z.string(),
  z.null(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
]);

// Loose on purpose: clients send every parameter they know (temperature, tools, user...); the agent ignores them.
const completionRequestSchema = z.looseObject({
  model: z.string({ error: 'model is required: name a pipeline (GET /v1/models lists them)' }).min(1),
  messages: z
    .array(z.looseObject({ role: z.string(), content: contentSchema.optional() }), {
      error: 'messages must be an array of { role, content }',
    })
    .min(1, 'messages must not be empty'),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  /** OpenRouter's name for "send me the reasoning": here the agent's progress (tool calls, plan, steps). */
  include_reasoning: z.boolean().nullish(),
  /** The run's token budget (input and output together, as --max-tokens counts them). */
  max_completion_tokens: z.int().min(1).nullish(),
  max_tokens: z.int().min(1).nullish(),
  /** An agent of the server's config file (its pipeline wins over `model`), as POST /v1/runs takes it. */
  agent: agentNameSchema.nullish(),
});

type CompletionRequest = z.infer<typeof completionRequestSchema>;

const openAIErrorTypes: Partial<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
};

/** The OpenAI error shape, which the `openai` SDK turns into its APIError subclasses. */
export function openAIError(context: Context, error: unknown): Response {
  const known = asStageloopError(error);
  const status = httpStatusOf[known.code];
  return context.json(
    {
      error: {
        message: known.message,
        type: openAIErrorTypes[status] ?? 'server_error',
        param: null,
        code: known.code,
      },
    },
    status,
  );
}

function textOfContent(content: CompletionRequest['messages'][number]['content']): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  return content.flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : [])).join('\n');
}

export function finishReasonOf(result: RunResult): 'stop' | 'length' | 'content_filter' {
  if (wasCutShort(result)) return 'length';
  if (result.stopReason.kind.startsWith('guard_')) return 'content_filter';
  return 'stop';
}

function usageOf(usage: Usage): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export function openAIChatRoutes(services: StartRunServices): Hono {
  const app = new Hono();
  app.onError((error, context) => openAIError(context, error));

  app.get('/v1/models', (context) =>
    context.json({
      object: 'list',
      // The configured agents too: a `model` naming one runs it.
      data: [
        ...services.pipelines.map((pipeline) => pipeline.name),
        ...(services.agents ?? []).flatMap((agent) => (agentNamedBy(agent.name, services) ? [agent.name] : [])),
      ].map((id) => ({ id, object: 'model', created: 0, owned_by: 'stageloop' })),
    }),
  );

  app.post('/v1/chat/completions', async (context) => {
    const request = await protocolBody(context, completionRequestSchema, 'a Chat Completions request object');
    // Roles stay structured: a user message that types "system: ..." is user text, not the client's instructions.
    const { task, conversation } = structuredConversation(
      request.messages.map((message) => ({ role: message.role, text: textOfContent(message.content) })),
    );
    const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? undefined;
    const agent = request.agent ?? agentNamedBy(request.model, services);
    const run = await startProtocolRun(services, {
      pipeline: request.model,
      task,
      conversation,
      ...(agent !== undefined && { agent }),
      ...(maxTokens !== undefined && { options: { maxTokens } }),
    });
    context.header(runIdHeader, run.runId);
    const created = Math.floor(Date.now() / 1000);
    const id = `chatcmpl-${run.runId}`;
    if (request.stream === true) return streamCompletion(context, run, request, { id, created });
    const result = await run.result;
    if (result.status === 'failed')
      throw new StageloopError('internal', `run ${run.runId} failed: ${result.stopReason.message}`);
    const progress =
      request.include_reasoning === true ? run.log.events.flatMap((event) => progressLineOf(event) ?? []) : [];
    return context.json({
      id,
      object: 'chat.completion',
      created,
      model: request.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: answerTextOf(result),
            refusal: null,
            ...(progress.length > 0 && { reasoning_content: progress.join('\n') }),
          },
          finish_reason: finishReasonOf(result),
          logprobs: null,
        },
      ],
      usage: usageOf(result.usage),
    });
  });
  return app;
}

/** Chunks as OpenAI sends them: a role chunk, content deltas, a finish chunk, the usage chunk when asked, `[DONE]`. */
function streamCompletion(
  context: Context,
  run: ProtocolRun,
  request: CompletionRequest,
  ids: { id: string; created: number },
): Response {
  const withUsage = request.stream_options?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: ids.id,
    object: 'chat.completion.chunk',
    created: ids.created,
    model: request.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    ...(withUsage && { usage: null }),
  });
  return runSse(context, run, 'Chat Completions', async function* ({ events, gone }) {
    yield chunk({ role: 'assistant', content: '' });
    let sinceToolTurn = '';
    let sentAny = false;
    // Only answer text is content: a preamble before a tool call goes to reasoning_content when asked for, else nowhere.
    const split = answerTextSplitter();
    for await (const event of events) {
      const piece = split(event);
      if (piece?.answer !== undefined) {
        for (const text of piece.answer) {
          sinceToolTurn += text;
          sentAny = true;
          yield chunk({ content: text });
        }
      } else if (piece?.preamble !== undefined) {
        if (request.include_reasoning === true) yield chunk({ reasoning_content: `${piece.preamble}\n` });
      } else if (event.type === 'model_reply' && event.data.toolCalls.length > 0) {
        sinceToolTurn = '';
      } else if (request.include_reasoning === true) {
        const line = progressLineOf(event);
        if (line !== undefined) yield chunk({ reasoning_content: `${line}\n` });
      }
    }
    if (gone.aborted) return;
    const result = await run.result.catch(() => undefined);
    if (result === undefined || result.status === 'failed') {
      const message =
        result === undefined
          ? `run ${run.runId} ended without a result`
          : `run ${run.runId} failed: ${result.stopReason.message}`;
      yield { error: { message, type: 'server_error', param: null, code: 'internal' } };
      return;
    }
    // A model that did not stream (or a preamble before a tool call): the answer itself still reaches the client.
    const answer = answerTextOf(result);
    if (sinceToolTurn.trim() !== answer.trim()) yield chunk({ content: sentAny ? `\n\n${answer}` : answer });
    yield chunk({}, finishReasonOf(result));
    if (withUsage)
      yield {
        id: ids.id,
        object: 'chat.completion.chunk',
        created: ids.created,
        model: request.model,
        choices: [],
        usage: usageOf(result.usage),
      };
    yield new RawLine('[DONE]');
  });
}
