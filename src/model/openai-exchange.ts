// One HTTP exchange with a Chat Completions server, streamed or not, under the request guard (abort and silence).
// Its own file so openai-model.ts keeps to retries, structured output and the text protocol.
import type OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { readCompletion, toChatParams, type WireSettings, type WireTurn } from './openai-wire.js';
import { RequestAborted, RequestGuard } from './request-guard.js';
import { StreamAssembler } from './stream-assembler.js';
import { ModelError, type ChatRequest, type ChatStreamEvent } from './types.js';

/** What one exchange needs besides the client and the request. */
export interface Exchange {
  settings: WireSettings;
  signal: AbortSignal | undefined;
  /** Given: the request is streamed and each event passed on. */
  onEvent: ((event: ChatStreamEvent) => void) | undefined;
  /** Sent as x-stainless-retry-count. */
  attempt: number;
  /** The server as errors show it. */
  url: string;
  timeoutMs: number;
  newId: () => string;
  /** false: no stream_options.include_usage. */
  streamUsage: boolean | undefined;
}

/** One HTTP exchange, streamed or not. */
export async function sendExchange(client: OpenAI, request: ChatRequest, exchange: Exchange): Promise<WireTurn> {
  const { settings, signal, onEvent, attempt, url, timeoutMs, newId } = exchange;
  const params = toChatParams(request, settings);
  const guard = new RequestGuard(signal, timeoutMs);
  const options = { signal: guard.signal, headers: { 'x-stainless-retry-count': String(attempt) } };
  try {
    if (onEvent === undefined) {
      const response = await guard.wait(
        client.chat.completions.create({ ...params, stream: false }, options).asResponse(),
      );
      guard.restartSilenceTimer();
      return readCompletion(
        parseBody(await guard.wait(response.text()), response.headers.get('content-type')),
        url,
        newId,
      );
    }
    const streamParams = {
      ...params,
      stream: true as const,
      ...(exchange.streamUsage === false ? {} : { stream_options: { include_usage: true } }),
    };
    const { data: stream, response } = await guard.wait(
      client.chat.completions.create(streamParams, options).withResponse(),
    );
    const assembler = new StreamAssembler(onEvent, newId, url);
    // A server that ignores `stream` answers with one JSON body: that is the whole reply, told to listeners at once.
    if (response.headers.get('content-type')?.includes('json')) {
      guard.restartSilenceTimer();
      const turn = readCompletion(JSON.parse(await guard.wait(response.text())), url, newId);
      announce(turn, onEvent);
      return turn;
    }
    const iterator: AsyncIterator<ChatCompletionChunk> = stream[Symbol.asyncIterator]();
    guard.restartSilenceTimer();
    let chunks = 0;
    for (let next = await guard.wait(iterator.next()); !next.done; next = await guard.wait(iterator.next())) {
      guard.restartSilenceTimer();
      assembler.add(next.value);
      chunks++;
    }
    // The SDK ends the iteration quietly when aborted: make sure an abort is not mistaken for the end of the reply.
    if (guard.signal.aborted) throw new RequestAborted();
    // A body with no event at all (a JSON body, a proxy's page) would otherwise pass for an empty reply.
    if (chunks === 0)
      throw new ModelError(
        'invalid_response',
        `${url} answered a streamed request with no events: its body is not valid JSON server-sent events`,
      );
    return assembler.result();
  } catch (error) {
    if (guard.silent) {
      throw new ModelError('timeout', `${url} stopped sending: nothing for ${timeoutMs} ms`, { cause: error });
    }
    throw error;
  } finally {
    guard.dispose();
  }
}

/** The events a streamed reply would have sent, for a reply that came whole. */
function announce(turn: WireTurn, onEvent: (event: ChatStreamEvent) => void): void {
  if (turn.reasoning !== undefined) onEvent({ type: 'reasoning', delta: turn.reasoning });
  if (turn.content !== '') onEvent({ type: 'text', delta: turn.content });
  turn.toolCalls.forEach((call, index) =>
    onEvent({ type: 'tool_call', index, id: call.id, name: call.name, argumentsDelta: call.arguments }),
  );
}

/** Parses a completion body; a server that sends JSON under another content type is forgiven. */
function parseBody(text: string, contentType: string | null): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (contentType?.includes('json')) throw error;
    return text;
  }
}
