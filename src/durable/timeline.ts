// A recorded run's timeline: one item per journal entry worth showing (stages, model and tool calls), in order.
// `stageloop show` prints it and the server's run view sends it.
import type { JsonValue } from '../common/json.js';
import { shortText } from '../common/short-text.js';
import { jsonOf, type JournalEntries, type JournalEntry } from './journal-entries.js';
import type { LoadedRun } from './inspect.js';

/** One timeline line per journal entry worth showing, in order. */
export interface TimelineItem {
  kind: 'stage' | 'model' | 'tool' | 'decision';
  zone: string;
  iteration: number;
  stage: string | null;
  at: number;
  /** ms since the previous stage ended (for a stage: its duration), not counting a wait for a person before it. */
  durationMs?: number;
  /** On the first item after a pause: how long the run waited for a person (not counted as stage time). */
  waitedMs?: number;
  summary: string;
  detail: JsonValue;
  /** The tool call ids of a tool batch, or of the calls a model reply asked for: a child run may hang under each. */
  calls?: string[];
}

export function timelineOf(loaded: LoadedRun): TimelineItem[] {
  const items: TimelineItem[] = [];
  let stageStart = loaded.run.createdAt;
  // A paused run's next entry is written when it resumes: the time between is a person's, not the stage's.
  let pausedAt: number | undefined;
  for (const entry of loaded.journal) {
    // (A resumed stage journaled with nothing before it cannot be split: its time stays its own.)
    const waitedMs = pausedAt === undefined || entry.kind === 'stage' ? undefined : Math.max(0, entry.at - pausedAt);
    if (waitedMs !== undefined) stageStart = entry.at;
    const item = itemOf(entry, stageStart);
    if (item === undefined) continue;
    pausedAt = undefined;
    if (entry.kind === 'stage') {
      stageStart = entry.at;
      if (entry.data.signal?.type === 'interrupt_run') pausedAt = entry.at;
    }
    items.push(waitedMs === undefined ? item : { ...item, waitedMs });
  }
  return items;
}

function itemOf(entry: JournalEntry, stageStart: number): TimelineItem | undefined {
  const base = { zone: entry.zone, iteration: entry.iteration, stage: entry.stage, at: entry.at };
  if (entry.kind === 'stage') {
    const signal = entry.data.signal;
    const outcome =
      entry.stage === null
        ? 'finalize begins'
        : signal
          ? `${signal.type === 'abort_run' ? 'aborts the run' : 'ends the loop'} (${signal.kind}): ${signal.reason}`
          : 'continue';
    return {
      kind: 'stage',
      ...base,
      durationMs: Math.max(0, entry.at - stageStart),
      summary: outcome,
      detail: jsonOf(entry.data),
    };
  }
  if (entry.kind === 'model') {
    const { response, error, request } = entry.data;
    const purpose = typeof request.purpose === 'string' ? request.purpose : 'model';
    if (error)
      return {
        kind: 'model',
        ...base,
        summary: `${purpose}: error ${error.kind ?? ''} ${shortText(error.message)}`,
        detail: jsonOf(entry.data),
      };
    const calls = (response?.toolCalls ?? []).map((call) => `${call.name} ${shortText(call.arguments, 60)}`).join(', ');
    const usage = response?.usage
      ? ` · ${response.usage.inputTokens ?? 0} in, ${response.usage.outputTokens ?? 0} out`
      : '';
    const said = response?.content ? ` "${shortText(response.content)}"` : '';
    // The reply's reasoning, before what it said: how the model got there.
    const thought = response?.reasoning ? ` (thought: "${shortText(response.reasoning)}")` : '';
    const item: TimelineItem = {
      kind: 'model',
      ...base,
      summary: `${purpose}: ${response?.finishReason ?? '?'}${usage}${thought}${said}${calls ? ` → ${calls}` : ''}`,
      detail: jsonOf(entry.data),
    };
    if (response !== undefined && response.toolCalls.length > 0) item.calls = response.toolCalls.map((call) => call.id);
    return item;
  }
  if (entry.kind === 'tool') {
    const { calls, results } = entry.data;
    const lines = calls.map((call, index) => {
      const result = results[index];
      const outcome =
        result === undefined
          ? '?'
          : result.ok
            ? shortText(result.content)
            : `error ${result.error.kind}: ${shortText(result.error.message)}`;
      return `${call.name} ${shortText(call.arguments, 60)} → ${outcome}`;
    });
    return {
      kind: 'tool',
      ...base,
      summary: lines.join('; '),
      detail: jsonOf(entry.data),
      calls: calls.map((call) => call.id),
    };
  }
  if (entry.kind === 'decision')
    return { kind: 'decision', ...base, summary: decisionSummary(entry.data), detail: jsonOf(entry.data) };
  return undefined;
}

/** A person's decision in words: what was decided about which call, with the edit or the message. */
function decisionSummary(data: JournalEntries['decision']): string {
  const { answer } = data;
  const call = data.id !== undefined ? ` call ${data.id}` : '';
  if ('action' in answer) return `limit: ${answer.action}${answer.action === 'extend' ? ` by ${answer.by}` : ''}`;
  if (!answer.approve) return `rejected${call}${answer.message ? `: "${shortText(answer.message, 200)}"` : ''}`;
  const edited =
    'arguments' in answer
      ? ` with edited arguments ${shortText(typeof answer.arguments === 'string' ? answer.arguments : JSON.stringify(answer.arguments), 200)}`
      : '';
  return `approved${call}${edited}${'always' in answer && answer.always ? " (and the rest of this tool's calls)" : ''}`;
}
