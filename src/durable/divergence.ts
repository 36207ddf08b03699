// The first place where a replay (or a resume's catch-up) did something other than the recording.
import type { JsonValue } from '../common/json.js';
import type { JournalEntry } from './journal-entries.js';
import type { RunCursor } from '../engine/run-seam.js';

export type DivergenceKind = 'model_request' | 'tool_call' | 'state' | 'signal' | 'extra_call' | 'missing_call';

export interface Divergence {
  zone: string;
  iteration: number;
  stage: string | null;
  what: DivergenceKind;
  /** One line saying what differed. */
  message: string;
  recorded: JsonValue;
  replayed: JsonValue;
}

const kindLabel: Record<string, string> = {
  model: 'a model call',
  tool: 'a tool call',
  clock: 'a clock read',
  id: 'an id',
  stage: 'the end of a stage',
  event: 'an event',
  decision: 'a decision',
  intent: 'the intent of a tool call',
};

/** The replay asked for `kind` where the recording has `entry` (or nothing left). */
export function mismatch(
  kind: string,
  where: RunCursor | { zone: string; iteration: number; stage: string | null },
  entry: JournalEntry | undefined,
): Divergence {
  const at = { zone: where.zone, iteration: where.iteration, stage: where.stage };
  if (entry === undefined) {
    return {
      ...at,
      what: 'extra_call',
      message: `the replay made ${kindLabel[kind] ?? kind} in ${place(at)} after the recording had ended`,
      recorded: null,
      replayed: kind,
    };
  }
  const recordedAt = place(entry);
  return {
    ...at,
    what: kind === 'stage' ? 'missing_call' : 'extra_call',
    message: `the replay made ${kindLabel[kind] ?? kind} in ${place(at)} where the recording has ${kindLabel[entry.kind] ?? entry.kind} in ${recordedAt}`,
    recorded: { kind: entry.kind, zone: entry.zone, iteration: entry.iteration, stage: entry.stage },
    replayed: { kind, zone: at.zone, iteration: at.iteration, stage: at.stage },
  };
}

export function place(where: { zone: string; iteration: number; stage: string | null }): string {
  const stage = where.stage === null ? 'the start of finalize' : `stage "${where.stage}"`;
  return where.zone === 'iteration' ? `${stage} (iteration ${where.iteration})` : `${stage} (${where.zone})`;
}

/** A short diff of two JSON values: the first path where they differ, with both sides cut short. */
export function shortDiff(recorded: JsonValue, replayed: JsonValue, path = ''): string {
  if (JSON.stringify(recorded) === JSON.stringify(replayed)) return '';
  if (typeof recorded === 'object' && recorded !== null && typeof replayed === 'object' && replayed !== null) {
    const keys = new Set([...Object.keys(recorded), ...Object.keys(replayed)]);
    for (const key of keys) {
      const left = (recorded as Record<string, JsonValue>)[key] ?? null;
      const right = (replayed as Record<string, JsonValue>)[key] ?? null;
      const inner = shortDiff(
        left,
        right,
        Array.isArray(recorded) ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`,
      );
      if (inner !== '') return inner;
    }
  }
  return `${path === '' ? 'value' : path}: recorded ${cut(recorded)}, replayed ${cut(replayed)}`;
}

function cut(value: JsonValue): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
