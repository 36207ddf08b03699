// The ports a recorded run uses: each model call, tool batch, clock read and id goes through the journal, which
// serves it from the recording (resume, replay) or makes it live and records it.
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
import { shortDiff, place } from './divergence.js';
import { errorFromJson, errorJson, requestJson, withAbort } from './journal-codec.js';
import { journaledTools, type PortOptions } from './journaled-tools.js';
import type { JournalEntries, RecordedAbort } from './journal-entries.js';
import type { RunJournal } from './run-journal.js';
import { journaledDecider } from './decisions.js';

export type { RecordedAbort } from './journal-entries.js';
export { abortOf } from './journal-codec.js';

export type { PortOptions } from './journaled-tools.js';

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
    this.provider = model?.provider ?? options.model?.provider ?? 'replay';
    this.modelName = model?.modelName ?? options.model?.name ?? 'recorded';
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
