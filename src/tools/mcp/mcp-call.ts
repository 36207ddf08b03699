// One call of an MCP tool: the server's questions go to the call's handlers, progress resets the quiet timeout, a
// tool that runs only as a task runs as one (polled here), and each failure becomes a typed ToolFailure.
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  CallToolResult,
  Client,
  Progress,
  RequestOptions,
  Tool as ListedTool,
} from '@modelcontextprotocol/client';
import type { McpSdk } from './sdk.js';
import { messageOf } from '../../common/error-message.js';
import { currentTraceHeaders } from '../../common/trace-headers.js';
import { ToolFailure } from '../tool-failure.js';
import type { McpClientHandlers } from './client-requests.js';
import type { McpHandlersFor } from './run-requests.js';
import type { PendingDecision } from '../../engine/signal.js';
import type { ToolContext } from '../define-tool.js';
import type { McpConnection } from './connection.js';
import { contentText } from './content.js';
import { loadedSdk } from './sdk.js';
import { progressEvents } from './progress-events.js';

/** A progress notification of a call, for the run's events. */
export interface McpProgress {
  server: string;
  tool: string;
  progress: number;
  total?: number;
  message?: string;
}

export interface McpCallSettings {
  /** How long the server may stay silent: an answer or a progress notification resets it. */
  quietMs: number;
  /** Fixed handlers, or handlers made for each call (runClientHandlers: the run's person and model). */
  handlers?: McpClientHandlers | McpHandlersFor;
  onProgress?(progress: McpProgress): void;
}

/** A server that keeps reporting progress may run this long at most (the executor's bound is the same). */
export const MCP_CALL_CEILING_MS = 3_600_000;

export async function callMcpTool(
  connection: McpConnection,
  listed: ListedTool,
  args: Record<string, unknown>,
  /** The call as the executor makes it; its `idempotencyKey` is the same at every attempt (the server can do it once). */
  context: Pick<ToolContext, 'signal' | 'callId' | 'reportUsage'> & { idempotencyKey?: string },
  settings: McpCallSettings,
  /** The tool's name in the run (`server__tool`). */
  name = listed.name,
): Promise<string> {
  const server = connection.server.name;
  const { idempotencyKey } = context;
  // A question for a person that must wait ends the call: the abort cancels it on the server.
  const ending = new AbortController();
  const signal = AbortSignal.any([context.signal, ending.signal]);
  let paused: PendingDecision | undefined;
  const handlers =
    typeof settings.handlers === 'function'
      ? settings.handlers({
          server,
          tool: name,
          arguments: JSON.stringify(args),
          callId: context.callId,
          signal,
          ...(context.reportUsage && { reportUsage: (usage) => context.reportUsage!(usage) }),
          pause(item) {
            paused ??= item;
            ending.abort();
          },
        })
      : settings.handlers;
  let client: Client;
  try {
    client = await connection.client();
  } catch (error) {
    throw new ToolFailure(messageOf(error), { retryable: true, cause: error });
  }
  // The server may have dropped or changed the tool since it was listed (tools/list_changed).
  await connection.relisting;
  const current = connection.listedTools?.find((tool) => tool.name === listed.name) ?? listed;
  if (connection.listedTools !== undefined && !connection.listedTools.includes(current))
    throw new ToolFailure(`the MCP server "${server}" no longer offers the tool "${listed.name}"`);
  const reportProgress = progressEvents(context.callId, name, server);
  const options = {
    // The signal makes the SDK send notifications/cancelled when the run is cancelled or the executor's bound passes.
    signal,
    timeout: settings.quietMs,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: MCP_CALL_CEILING_MS,
    // A progress token goes with every call: a long call says how far it is and stays alive.
    onprogress: (progress: Progress) => {
      reportProgress?.(progress);
      settings.onProgress?.({
        server,
        tool: listed.name,
        progress: progress.progress,
        ...(progress.total !== undefined && { total: progress.total }),
        ...(progress.message !== undefined && { message: progress.message }),
      });
    },
  };
  // The call's span context (MCP 2026-07-28 `_meta` traceparent/tracestate): the server's spans join the run's trace.
  const meta = { ...currentTraceHeaders(), ...(idempotencyKey !== undefined && { idempotencyKey }) };
  const request = { name: listed.name, arguments: args, ...(Object.keys(meta).length > 0 && { _meta: meta }) };
  let result: CallToolResult;
  try {
    result = await connection.callers.during(handlers, () =>
      current.execution?.taskSupport === 'required'
        ? callAsTask(client, loadedSdk!, request, options)
        : client.callTool(request, options),
    );
  } catch (error) {
    if (paused !== undefined) throw pausedFailure(paused);
    throw callFailure(server, connection.scrub(messageOf(error)), error);
  }
  if (paused !== undefined) throw pausedFailure(paused);
  // A server that changed its tools during the call said so before answering: the run sees the new list with the result.
  await connection.relisting;
  const text =
    'content' in result && Array.isArray(result.content)
      ? contentText(result)
      : JSON.stringify((result as { toolResult?: unknown }).toolResult ?? null);
  if (result.isError === true)
    throw new ToolFailure(`the MCP server "${server}" reported an error: ${connection.scrub(text) || '(no message)'}`);
  return text;
}

function pausedFailure(item: PendingDecision): ToolFailure {
  return new ToolFailure(`Waiting for a person: ${item.reason}.`, { kind: 'paused', pending: [item] });
}

/** A task-only tool: created as a task, polled until it ends or asks for input; cancelling the run cancels the task. */
async function callAsTask(
  client: Client,
  sdk: McpSdk,
  request: Parameters<Client['callTool']>[0],
  options: RequestOptions & { signal: AbortSignal },
): Promise<CallToolResult> {
  // SDK v2 has no task runtime: the 2025-11-25 task methods are sent with their schemas.
  const created = await client.request(
    { method: 'tools/call', params: { ...request, task: {} } },
    sdk.schemas.CreateTaskResult,
    options,
  );
  let task = created.task;
  const cancel = () =>
    void client
      .request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, sdk.schemas.CancelTaskResult)
      .catch(() => undefined);
  options.signal.addEventListener('abort', cancel, { once: true });
  try {
    while (task.status === 'working') {
      await sleep(task.pollInterval ?? 1_000, undefined, { signal: options.signal });
      task = await client.request({ method: 'tasks/get', params: { taskId: task.taskId } }, sdk.schemas.GetTaskResult, {
        signal: options.signal,
        ...(options.timeout !== undefined && { timeout: options.timeout }),
      });
    }
    // Waits for the end; a task that needs input sends its questions (elicitation) while this request is open.
    return await client.request(
      { method: 'tasks/result', params: { taskId: task.taskId } },
      sdk.schemas.CallToolResult,
      options,
    );
  } finally {
    options.signal.removeEventListener('abort', cancel);
  }
}

export function callFailure(server: string, message: string, error: unknown): ToolFailure {
  // A call fails after a connection was tried, so the SDK is normally loaded; without it, nothing is an SDK error.
  const sdk = loadedSdk;
  if (sdk === undefined)
    return new ToolFailure(`the call to the MCP server "${server}" failed: ${message}`, {
      retryable: true,
      cause: error,
    });
  const { SdkError, SdkErrorCode, ProtocolError } = sdk;
  // Closed under the call, found closed when the call was sent, or the socket refused: the server went away.
  const gone = [SdkErrorCode.ConnectionClosed, SdkErrorCode.NotConnected, SdkErrorCode.SendFailed];
  if ((error instanceof SdkError && gone.includes(error.code)) || connectionLost(error)) {
    return new ToolFailure(
      `the MCP server "${server}" closed the connection during the call (it crashed or was stopped); the next call connects again`,
      { retryable: true, cause: error },
    );
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    return new ToolFailure(`the MCP server "${server}" did not answer in time`, { kind: 'timeout', cause: error });
  if (error instanceof ProtocolError) {
    // The SDK prefixes "MCP error CODE: " on each side of the wire.
    const text = message.replace(/^(MCP error -?\d+: )+/, '');
    return new ToolFailure(`the MCP server "${server}" answered with error ${error.code}: ${text}`, { cause: error });
  }
  if (error instanceof ToolFailure) return error;
  return new ToolFailure(`the call to the MCP server "${server}" failed: ${message}`, {
    retryable: true,
    cause: error,
  });
}

/** Socket errors of a server that went away under a call (an HTTP transport's request fails with one as its cause). */
const lostConnectionCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function connectionLost(error: unknown): boolean {
  // The SDK's protocol layer rejects a request made after its transport closed with a bare Error of this text.
  if (error instanceof Error && error.message === 'Not connected') return true;
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && lostConnectionCodes.has(code)) return true;
  }
  return false;
}
