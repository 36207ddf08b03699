// A recorded run's tool batches: served from the recording (resume, replay) or run live and recorded. Before calls
// that may write run, their intent is on disk; a recording cut off between an intent and its result holds those
// calls in doubt on resume: reads and idempotent tools run again, any other write waits for a person (in-doubt.ts).
import type { RunCursor } from '../engine/run-seam.js';
import type { ToolCall, ToolDefinition } from '../model/types.js';
import type { CallEffects, ToolBox, ToolResult } from '../engine/tool-port.js';
import { inDoubtHold, rerunsByItself } from '../tools/in-doubt.js';
import { place, shortDiff, type Divergence } from './divergence.js';
import { recordedCalls, withAbort } from './journal-codec.js';
import { jsonListOf, type JournalEntries, type JournalEntry, type RecordedAbort } from './journal-entries.js';
import type { RunJournal } from './run-journal.js';

export interface PortOptions {
  /** Replay: the tool list as recorded, when no real ToolBox is given. */
  definitions?: ToolDefinition[];
  /** Replay: called when a served call was ended by an abort, before its error is thrown. */
  onRecordedAbort?: (abort: RecordedAbort) => void;
  /** Replay: the recorded model's provider and name, so stages that read them (limits, prices) see what the run saw. */
  model?: { provider: string; name: string };
}

/** A box that does not say what its tools do: every call may write, none is safe to run twice. */
const undeclared: CallEffects = { effects: 'write', idempotent: false };

export function journaledTools(
  tools: ToolBox | undefined,
  cursor: RunCursor,
  journal: RunJournal,
  options: PortOptions,
): ToolBox {
  const effectsOf = (call: ToolCall): CallEffects => tools?.effectsOf?.(call.name) ?? undeclared;
  return {
    definitions: () => tools?.definitions() ?? options.definitions ?? [],
    async executeAll(calls: readonly ToolCall[], signal?: AbortSignal): Promise<ToolResult[]> {
      const recorded = recordedCalls(calls);
      // Recordings made before intents existed have none: its absence is no divergence.
      const intent = journal.serve('intent', cursor, (entry) => differs(entry, recorded), true);
      // A served batch's calls are not made: the model calls they made for an MCP server (sampling) are not either.
      while (isSampling(journal.peekFor('model', cursor))) journal.serve('model', cursor);
      const served = journal.serve('tool', cursor, (entry) => differs(entry, recorded));
      if (served !== undefined) {
        if (served.data.abort !== undefined) options.onRecordedAbort?.(served.data.abort);
        return served.data.results;
      }
      if (tools === undefined) throw new Error('no tools are configured for this run');
      let results: ToolResult[];
      if (intent !== undefined) results = await inDoubt(tools, calls, intent.data.calls, effectsOf, signal);
      else {
        const writes = recorded.filter((call) => effectsOf(call).effects === 'write');
        // One more write per batch that may change the world, on disk before any of its calls starts.
        if (writes.length > 0) {
          journal.record('intent', cursor, { calls: writes });
          await journal.flush();
        }
        results = journal.healthy ? await tools.executeAll(calls, signal) : calls.map(notRun);
      }
      journal.record('tool', cursor, withAbort<JournalEntries['tool']>({ calls: recorded, results }, signal));
      await journal.flush();
      return results;
    },
  };
}

/** A model call an MCP server asked for during a tool call (its request's purpose is `sampling:SERVER`). */
function isSampling(entry: JournalEntry | undefined): boolean {
  const purpose = entry?.kind === 'model' ? entry.data.request.purpose : undefined;
  return typeof purpose === 'string' && purpose.startsWith('sampling:');
}

/** The batch of a recording cut off after its intent: calls that cannot run again by themselves wait for a person. */
async function inDoubt(
  tools: ToolBox,
  calls: readonly ToolCall[],
  intended: readonly ToolCall[],
  effectsOf: (call: ToolCall) => CallEffects,
  signal: AbortSignal | undefined,
): Promise<ToolResult[]> {
  const doubted = new Set(intended.map((call) => call.id));
  const held = calls.map((call) =>
    doubted.has(call.id) && !rerunsByItself(effectsOf(call)) ? inDoubtHold(call) : undefined,
  );
  const runnable = calls.filter((_, index) => held[index] === undefined);
  const ran = runnable.length > 0 ? await tools.executeAll(runnable, signal) : [];
  let next = 0;
  return held.map((hold) => hold ?? ran[next++]!);
}

/** The recorded calls (of a batch, or of its intent) differ from the calls made now. */
function differs(entry: JournalEntry<'tool' | 'intent'>, recorded: readonly ToolCall[]): Divergence | undefined {
  const ids = new Set(entry.data.calls.map((call) => call.id));
  const now = entry.kind === 'tool' ? recorded : recorded.filter((call) => ids.has(call.id));
  if (JSON.stringify(entry.data.calls) === JSON.stringify(now)) return undefined;
  const [before, after] = [jsonListOf(entry.data.calls), jsonListOf([...now])];
  return {
    zone: entry.zone,
    iteration: entry.iteration,
    stage: entry.stage,
    what: 'tool_call',
    message: `the tool calls in ${place(entry)} differ: ${shortDiff(before, after)}`,
    recorded: before,
    replayed: after,
  };
}

/** A call not started because its intent could not be written: the run ends at its next stage boundary. */
function notRun(call: ToolCall): ToolResult {
  return {
    ok: false,
    error: {
      kind: 'failed',
      message: `Tool "${call.name}" was not started: the run could not record that it was about to run.`,
      retryable: false,
    },
    durationMs: 0,
  };
}
