// The AI SDK's UI message stream (v1): POST /v1/chat takes the body `useChat`'s DefaultChatTransport sends and answers
// with the chunks `readUIMessageStream` reads: text, tool parts, reasoning for stage progress, data-plan, finish.
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { RunResult } from '../../engine/run-result.js';
import { agentNameSchema, approveToolsSchema } from '../request-schemas.js';
import { protocolBody, protocolErrorResponse } from './protocol-errors.js';
import { RawLine, runSse } from './run-sse.js';
import { runIdHeader, startProtocolRun, structuredConversation, type ProtocolRun } from './protocol-runs.js';
import type { StartRunServices } from '../start-run.js';
import { ChunkWriter, type AiSdkMajor } from './ui-message-chunks.js';

export { ChunkWriter } from './ui-message-chunks.js';

export const uiMessageStreamHeader = 'x-vercel-ai-ui-message-stream';

// The whole body DefaultChatTransport sends (id, messages, trigger, messageId) plus anything the app adds; only
// `pipeline` and `agent` (body fields the app may set) are read besides the messages.
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
  /** An agent of the server's config file: the chat runs as that agent, as POST /v1/runs with `agent` does. */
  agent: agentNameSchema.optional(),
  /** Tools whose calls pause for a person's decision: the stream shows the SDK's approval parts. */
  approveTools: approveToolsSchema.optional(),
  /** The AI SDK major version of the client (default 6): 7 also reads `reset-step` and `tool-approval-response`. */
  aiSdk: z
    .union([z.literal(6), z.literal(7)], { error: 'aiSdk must be 6 or 7, the AI SDK major version of the client' })
    .optional(),
});

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
    // Roles stay structured (as on /v1/chat/completions): earlier turns are messages, never task text.
    const { task, conversation } = structuredConversation(turns);
    const pipeline = request.pipeline ?? services.defaultPipeline;
    const run = await startProtocolRun(services, {
      pipeline,
      task,
      conversation,
      ...(request.agent !== undefined && { agent: request.agent }),
      ...(request.approveTools !== undefined && { approveTools: request.approveTools }),
    });
    return streamChunks(context, run, request.messageId, request.aiSdk ?? 6);
  });
  return app;
}

function streamChunks(context: Context, run: ProtocolRun, messageId: string | undefined, client: AiSdkMajor): Response {
  context.header(uiMessageStreamHeader, 'v1');
  context.header('x-accel-buffering', 'no');
  context.header(runIdHeader, run.runId);
  return runSse(context, run, 'chat', async function* ({ events, gone }) {
    yield { type: 'start', messageId: messageId ?? `run-${run.runId}`, messageMetadata: { runId: run.runId } };
    const writer = new ChunkWriter(client);
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
