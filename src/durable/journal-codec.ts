// How port calls become journal data and back: model requests and replies, tool calls and results, errors.
import type { JsonObject, JsonValue } from '../common/json.js';
import { ModelError, type ChatRequest, type ModelErrorKind } from '../model/types.js';
import type { ToolCall, ToolDefinition } from '../model/types.js';
import { jsonListOf, type RecordedAbort, type RecordedError } from './journal-entries.js';
import { isErrorNamed, messageOf } from '../common/error-message.js';
import { DeadlineReached } from '../engine/run-abort.js';

export type { RecordedError } from './journal-entries.js';

/** A request as JSON: a zod response schema is kept by name only (it is code, not data). */
export function requestJson(request: ChatRequest): JsonObject {
  const json: JsonObject = { purpose: request.purpose, messages: jsonListOf(request.messages) };
  if (request.tools !== undefined) json.tools = request.tools.map((tool) => tool.name);
  if (request.toolChoice !== undefined) json.toolChoice = request.toolChoice as JsonValue;
  if (request.responseFormat !== undefined) json.responseFormat = request.responseFormat.name;
  if (request.temperature !== undefined) json.temperature = request.temperature;
  if (request.maxOutputTokens !== undefined) json.maxOutputTokens = request.maxOutputTokens;
  return json;
}

export function errorJson(error: unknown): RecordedError {
  if (error instanceof ModelError) {
    const json: RecordedError = {
      name: 'ModelError',
      message: error.message,
      kind: error.kind,
      retryable: error.retryable,
    };
    if (error.status !== undefined) json.status = error.status;
    return json;
  }
  return { name: error instanceof Error ? error.name : 'Error', message: messageOf(error) };
}

/** The error a recorded call threw, made again: a ModelError stays one, with its kind. */
export function errorFromJson(json: RecordedError): Error {
  if (json.name === 'ModelError' && json.kind !== undefined) {
    const options: { retryable?: boolean; status?: number } = {};
    if (json.retryable !== undefined) options.retryable = json.retryable;
    if (json.status !== undefined) options.status = json.status;
    return new ModelError(json.kind as ModelErrorKind, json.message, options);
  }
  const error = new Error(json.message);
  error.name = json.name;
  return error;
}

export function recordedCalls(calls: readonly ToolCall[]): ToolCall[] {
  return calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }));
}

export function definitionsJson(definitions: readonly ToolDefinition[]): JsonValue {
  return JSON.parse(JSON.stringify(definitions)) as JsonValue;
}

/** The call's data, with why the run was aborted when it was. */
export function withAbort<Data extends { abort?: RecordedAbort }>(data: Data, signal: AbortSignal | undefined): Data {
  if (signal?.aborted !== true) return data;
  return { ...data, abort: abortOf(signal.reason) };
}

export function abortOf(reason: unknown): RecordedAbort {
  if (reason instanceof DeadlineReached)
    return { deadline: { stage: reason.stage, kind: reason.kind, message: reason.message } };
  const text = messageOf(reason);
  return { cancel: isErrorNamed(reason, 'AbortError') && text === 'This operation was aborted' ? null : text };
}
