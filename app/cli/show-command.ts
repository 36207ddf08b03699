// `stageloop show RUN [--json]`: a recorded run's timeline: stages, model and tool calls, signals, how it ended.
import { parseArgs } from 'node:util';
import type { JsonObject, JsonValue } from '../../src/common/json.js';
import type { LoadedRun } from '../../src/durable/inspect.js';
import type { JournalEntry } from '../../src/store/types.js';
import { planOfState } from './output.js';
import { planGraphLines } from './plan-graph.js';
import { UsageError } from './args.js';
import type { CliStreams } from './run-command.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';

export const showUsage = 'Usage: stageloop show RUN [--json | --html] [--store PATH]\nThe run\'s timeline: each stage with its zone, iteration, duration and outcome, every model and tool call, the stop reason and the answer.\n--html writes one self-contained page with the timeline as a waterfall: stageloop show RUN --html > run.html';

export function parseShowFlags(argv: string[]): { runId: string; json: boolean; html: boolean } | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { json: { type: 'boolean' }, html: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]!.replace(/\.$/, '')}: run "stageloop show --help"`);
  }
  if (parsed.values.help) return 'help';
  const [runId, extra] = parsed.positionals;
  if (runId === undefined) throw new UsageError('stageloop show needs a run id: list them with "stageloop runs"');
  if (extra !== undefined) throw new UsageError(`stageloop show takes one run id, got also "${extra}"`);
  if (parsed.values.json && parsed.values.html) throw new UsageError('stageloop show takes --json or --html, not both');
  return { runId, json: parsed.values.json ?? false, html: parsed.values.html ?? false };
}

/** One timeline line per journal entry worth showing, in order. */
export interface TimelineItem {
  kind: 'stage' | 'model' | 'tool' | 'decision';
  zone: string;
  iteration: number;
  stage: string | null;
  at: number;
  /** ms since the previous stage ended (for a stage: its duration). */
  durationMs?: number;
  summary: string;
  detail: JsonValue;
}

export function timelineOf(loaded: LoadedRun): TimelineItem[] {
  const items: TimelineItem[] = [];
  let stageStart = loaded.run.createdAt;
  for (const entry of loaded.journal) {
    const item = itemOf(entry, stageStart);
    if (item === undefined) continue;
    if (entry.kind === 'stage') stageStart = entry.at;
    items.push(item);
  }
  return items;
}

function itemOf(entry: JournalEntry, stageStart: number): TimelineItem | undefined {
  const data = (entry.data ?? {}) as JsonObject;
  const base = { zone: entry.zone, iteration: entry.iteration, stage: entry.stage, at: entry.at };
  if (entry.kind === 'stage') {
    const signal = data.signal as { type?: string; kind?: string; reason?: string } | null;
    const outcome = entry.stage === null ? 'finalize begins' : signal ? `${signal.type === 'abort_run' ? 'aborts the run' : 'ends the loop'} (${signal.kind}): ${signal.reason}` : 'continue';
    return { kind: 'stage', ...base, durationMs: Math.max(0, entry.at - stageStart), summary: outcome, detail: data };
  }
  if (entry.kind === 'model') {
    const response = data.response as { content?: string; finishReason?: string; usage?: { inputTokens?: number; outputTokens?: number }; toolCalls?: Array<{ name: string; arguments: string }> } | undefined;
    const error = data.error as { kind?: string; message?: string } | undefined;
    const purpose = (data.request as { purpose?: string } | undefined)?.purpose ?? 'model';
    if (error) return { kind: 'model', ...base, summary: `${purpose}: error ${error.kind ?? ''} ${short(error.message ?? '')}`, detail: data };
    const calls = (response?.toolCalls ?? []).map((call) => `${call.name} ${short(call.arguments, 60)}`).join(', ');
    const usage = response?.usage ? ` · ${response.usage.inputTokens ?? 0} in, ${response.usage.outputTokens ?? 0} out` : '';
    const said = response?.content ? ` "${short(response.content)}"` : '';
    return { kind: 'model', ...base, summary: `${purpose}: ${response?.finishReason ?? '?'}${usage}${said}${calls ? ` → ${calls}` : ''}`, detail: data };
  }
  if (entry.kind === 'tool') {
    const calls = (data.calls ?? []) as Array<{ name: string; arguments: string }>;
    const results = (data.results ?? []) as Array<{ ok: boolean; content?: string; error?: { kind: string; message: string } }>;
    const lines = calls.map((call, index) => {
      const result = results[index];
      const outcome = result === undefined ? '?' : result.ok ? short(result.content ?? '') : `error ${result.error?.kind}: ${short(result.error?.message ?? '')}`;
      return `${call.name} ${short(call.arguments, 60)} → ${outcome}`;
    });
    return { kind: 'tool', ...base, summary: lines.join('; '), detail: data };
  }
  if (entry.kind === 'decision') return { kind: 'decision', ...base, summary: decisionSummary(data), detail: data };
  return undefined;
}

/** A person's decision in words: what was decided about which call, with the edit or the message. */
function decisionSummary(data: JsonObject): string {
  const answer = (data.answer ?? {}) as { approve?: boolean; arguments?: JsonValue; message?: string; always?: boolean; action?: string; by?: number };
  const call = typeof data.id === 'string' ? ` call ${data.id}` : '';
  if (data.type === 'limit') return `limit: ${answer.action ?? '?'}${answer.by !== undefined ? ` by ${answer.by}` : ''}`;
  if (answer.approve === false) return `rejected${call}${answer.message ? `: "${short(answer.message, 200)}"` : ''}`;
  const edited = answer.arguments === undefined ? '' : ` with edited arguments ${short(typeof answer.arguments === 'string' ? answer.arguments : JSON.stringify(answer.arguments), 200)}`;
  return `approved${call}${edited}${answer.always ? ' (and the rest of this tool\'s calls)' : ''}`;
}

function short(text: string, limit = 80): string {
  const single = text.replace(/\s+/g, ' ').trim();
  return single.length > limit ? `${single.slice(0, limit - 1)}…` : single;
}

/** "[b] " for a call made for plan step b while steps ran side by side. */
function stepOf(item: TimelineItem): string {
  const mark = item.stage?.indexOf('#') ?? -1;
  return mark === -1 ? '' : `[${item.stage!.slice(mark + 1)}] `;
}

function where(item: TimelineItem): string {
  if (item.zone === 'iteration') return `[${item.iteration}]`;
  return item.zone === 'setup' ? '[setup]' : '[finalize]';
}

export async function showCommand(loaded: LoadedRun, output: boolean | { json: boolean; html?: boolean }, streams: CliStreams): Promise<number> {
  const { run } = loaded;
  const { json, html = false } = typeof output === 'boolean' ? { json: output } : output;
  if (html) {
    const [{ standaloneRunPage }, { viewOfLoaded }] = await Promise.all([import('../../src/server/console/pages.js'), import('../../src/server/run-view.js')]);
    streams.stdout.write(standaloneRunPage(viewOfLoaded(loaded)));
    return 0;
  }
  const timeline = timelineOf(loaded);
  if (json) {
    const { checkpoints: _checkpoints, journal: _journal, ...rest } = loaded;
    streams.stdout.write(`${terminalSafeJson({ ...rest.run, timeline })}\n`);
    return 0;
  }
  const lines = [`run ${run.runId} · pipeline ${run.pipeline} · ${run.status} · started ${new Date(run.createdAt).toISOString()}`, `task: ${short(String(run.input.task ?? ''), 200)}`, ''];
  for (const item of timeline) {
    if (item.kind === 'stage') lines.push(`${where(item)} ${item.stage ?? '—'} (${item.zone}, ${item.durationMs} ms): ${item.summary}`);
    else lines.push(`    ${stepOf(item)}${item.kind === 'model' ? 'model' : item.kind === 'decision' ? 'decision' : 'tools'} · ${item.summary}`);
  }
  const plan = planOfState(loaded.checkpoints.at(-1)?.state);
  if (plan !== undefined) lines.push('', ...planGraphLines(plan, loaded.journal));
  const outcome = run.outcome;
  lines.push('');
  if (outcome) {
    lines.push(`stop: ${outcome.stopReason.kind}${outcome.stopReason.stage ? ` at ${outcome.stopReason.stage}` : ''} — ${outcome.stopReason.message}`);
    lines.push(`iterations: ${outcome.iterations} · tokens: ${outcome.tokens}${outcome.partial ? ' · partial answer' : ''}`);
    lines.push(`answer: ${outcome.answer ?? '(none)'}`);
  } else {
    lines.push(`not finished: ${run.head} journal entries so far; continue it with "stageloop resume ${run.runId}"`);
  }
  streams.stdout.write(`${terminalSafe(lines.join('\n'))}\n`);
  return 0;
}
