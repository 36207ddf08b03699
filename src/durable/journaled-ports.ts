// The ports a recorded run uses: each model call, tool batch, clock read and id goes through the journal, which
// serves it from the recording (resume, replay) or makes it live and records it.
import { isErrorNamed, messageOf } from '../common/error-message.js';
import { DeadlineReached } from '../engine/run-abort.js';
import type { RunCursor } from '../engine/run-seam.js';
import type { Deps } from '../engine/stage.js';
import type {
  ChatModel,
  ChatRequest,
  ChatResponse,
  ChatStreamEvent,
  ToolCall,
  ToolDefinition,
} from '../model/types.js';
import type { ToolBox, ToolResult } from '../engine/tool-port.js';
import { shortDiff, place } from './divergence.js';
import { errorFromJson, errorJson, recordedCalls, requestJson } from './journal-codec.js';
import { jsonListOf, type JournalEntries, type RecordedAbort } from './journal-entries.js';
import type { RunJournal } from './run-journal.js';
import { journaledDecider } from './decisions.js';

export type { RecordedAbort } from './journal-entries.js';

export interface PortOptions {
  /** Replay: the tool list as recorded, when no real ToolBox is given. */
  definitions?: ToolDefinition[];
  /** Replay: called when a served call was ended by an abort, before its error is thrown. */
  onRecordedAbort?: (abort: RecordedAbort) => void;
}

export function journaledDeps(deps: Deps, cursor: RunCursor, journal: RunJournal, options: PortOptions = {}): Deps {
  const wrapped: Deps = {
    ...deps,
    clock: journaledClock(deps, cursor, journal),
    ids: journaledIds(deps, cursor, journal),
  };
  if (deps.model !== undefined || journal.mode === 'replay')
    wrapped.model = new JournaledModel(deps.model, cursor, journal, options);
  if (deps.tools !== undefined || journal.mode === 'replay')
    wrapped.tools = journaledTools(deps.tools, cursor, journal, options);
  // Always wrapped: a resume or replay may serve decisions recorded where the run now has no decider.
  wrapped.approve = journaledDecider(deps.approve, 'approval', cursor, journal);
  wrapped.onLimit = journaledDecider(deps.onLimit, 'limit', cursor, journal);
  return wrapped;
}

function journaledClock(deps: Deps, cursor: RunCursor, journal: RunJournal): Deps['clock'] {
  return { now: journaledValue('clock', () => deps.clock.now(), cursor, journal) };
}

function journaledIds(deps: Deps, cursor: RunCursor, journal: RunJournal): Deps['ids'] {
  return { newId: journaledValue('id', () => deps.ids.newId(), cursor, journal) };
}

/** A value drawn through deps: served from the recording, else drawn live and recorded. */
function journaledValue<Kind extends 'clock' | 'id'>(
  kind: Kind,
  draw: () => JournalEntries[Kind],
  cursor: RunCursor,
  journal: RunJournal,
): () => JournalEntries[Kind] {
  return () => {
    const served = journal.serve(kind, cursor);
    if (served !== undefined) return served.data;
    const value = draw();
    journal.record(kind, cursor, value);
    return value;
  };
}

class JournaledModel implements ChatModel {
  readonly provider: string;
  readonly modelName: string;
  readonly endpoint?: { address: string; port: number };

  constructor(
    private readonly model: ChatModel | undefined,
    private readonly cursor: RunCursor,
    private readonly journal: RunJournal,
    private readonly options: PortOptions,
  ) {
    this.provider = model?.provider ?? 'replay';
    this.modelName = model?.modelName ?? 'recorded';
    if (model?.endpoint !== undefined) this.endpoint = model.endpoint;
  }

  chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    return this.call(request, signal, (model) => model.chat(request, signal));
  }

  chatStream(
    request: ChatRequest,
    onEvent: (event: ChatStreamEvent) => void,
    signal?: AbortSignal,
  ): Promise<ChatResponse> {
    return this.call(
      request,
      signal,
      (model) => (model.chatStream ? model.chatStream(request, onEvent, signal) : model.chat(request, signal)),
      onEvent,
    );
  }

  private async call(
    request: ChatRequest,
    signal: AbortSignal | undefined,
    live: (model: ChatModel) => Promise<ChatResponse>,
    onEvent?: (event: ChatStreamEvent) => void,
  ): Promise<ChatResponse> {
    const json = requestJson(request);
    const journal = this.journal;
    const served = journal.serve('model', this.cursor, (entry) => {
      const recorded = journal.messages.preview(entry.data.request, entry.stage);
      if (JSON.stringify(recorded) === JSON.stringify(json)) return undefined;
      return {
        zone: entry.zone,
        iteration: entry.iteration,
        stage: entry.stage,
        what: 'model_request',
        message: `the model request in ${place(entry)} differs: ${shortDiff(recorded, json)}`,
        recorded,
        replayed: json,
      };
    });
    if (served !== undefined) {
      const data = served.data;
      journal.messages.expand(data.request, served.stage);
      if (data.response === undefined) throw this.recordedFailure(data);
      const response = data.response;
      if (onEvent !== undefined && response.reasoning !== undefined)
        onEvent({ type: 'reasoning', delta: response.reasoning });
      if (onEvent !== undefined && response.content !== '') onEvent({ type: 'text', delta: response.content });
      return response;
    }
    if (this.model === undefined) throw new Error('no model is configured for this run');
    const stored = journal.messages.compress(json, this.cursor.stage);
    try {
      const response = await live(this.model);
      journal.record('model', this.cursor, { request: stored, response });
      await journal.flush();
      return response;
    } catch (error) {
      journal.record(
        'model',
        this.cursor,
        withAbort<JournalEntries['model']>({ request: stored, error: errorJson(error) }, signal),
      );
      await journal.flush();
      throw error;
    }
  }

  private recordedFailure(data: JournalEntries['model']): Error {
    if (data.abort !== undefined) this.options.onRecordedAbort?.(data.abort);
    return errorFromJson(
      data.error ?? { name: 'Error', message: 'the recorded model call has neither a response nor an error' },
    );
  }
}

function journaledTools(
  tools: ToolBox | undefined,
  cursor: RunCursor,
  journal: RunJournal,
  options: PortOptions,
): ToolBox {
  return {
    definitions: () => tools?.definitions() ?? options.definitions ?? [],
    async executeAll(calls: readonly ToolCall[], signal?: AbortSignal): Promise<ToolResult[]> {
      const recorded = recordedCalls(calls);
      const served = journal.serve('tool', cursor, (entry) => {
        if (JSON.stringify(entry.data.calls) === JSON.stringify(recorded)) return undefined;
        const [before, now] = [jsonListOf(entry.data.calls), jsonListOf(recorded)];
        return {
          zone: entry.zone,
          iteration: entry.iteration,
          stage: entry.stage,
          what: 'tool_call',
          message: `the tool calls in ${place(entry)} differ: ${shortDiff(before, now)}`,
          recorded: before,
          replayed: now,
        };
      });
      if (served !== undefined) {
        if (served.data.abort !== undefined) options.onRecordedAbort?.(served.data.abort);
        return served.data.results;
      }
      if (tools === undefined) throw new Error('no tools are configured for this run');
      const results = await tools.executeAll(calls, signal);
      journal.record('tool', cursor, withAbort<JournalEntries['tool']>({ calls: recorded, results }, signal));
      await journal.flush();
      return results;
    },
  };
}

/** The call's data, with why the run was aborted when it was. */
function withAbort<Data extends { abort?: RecordedAbort }>(data: Data, signal: AbortSignal | undefined): Data {
  if (signal?.aborted !== true) return data;
  return { ...data, abort: abortOf(signal.reason) };
}

export function abortOf(reason: unknown): RecordedAbort {
  if (reason instanceof DeadlineReached)
    return { deadline: { stage: reason.stage, kind: reason.kind, message: reason.message } };
  const text = messageOf(reason);
  return { cancel: isErrorNamed(reason, 'AbortError') && text === 'This operation was aborted' ? null : text };
}
