// What graders see of a run: built from a live RunResult (tool calls seen on the way) or a replayed one (the journal's).
import type { RunResult } from '../engine/run-result.js';
import type { ToolCall } from '../model/types.js';
import type { JournalEntry } from '../durable/journal-entries.js';
import type { ToolBox } from '../engine/tool-port.js';
import type { RunToolBox } from '../engine/tool-run.js';
import type { CalledTool, EvalCase, GradeSubject } from './graders/types.js';

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const calledTool = (call: Pick<ToolCall, 'name' | 'arguments'>): CalledTool => ({
  name: call.name,
  arguments: parsedArguments(call.arguments),
});

/**
 * A ToolBox that runs the given one and notes every call, for graders of tool use. It keeps the box's per-run view
 * (`forRun`, the registry's tool gate), so an eval run's calls pass the same gate as any other run's.
 */
export function noteToolCalls(tools: ToolBox, into: CalledTool[]): ToolBox {
  const noted = (box: ToolBox): ToolBox => ({
    definitions: () => box.definitions(),
    executeAll(calls, signal) {
      into.push(...calls.map(calledTool));
      return box.executeAll(calls, signal);
    },
  });
  const perRun = (tools as Partial<RunToolBox>).forRun;
  if (perRun === undefined) return noted(tools);
  const box: RunToolBox = { ...noted(tools), forRun: (run) => noted(perRun.call(tools, run)) };
  return box;
}

/** The tool calls a recorded run made, from its journal. */
export function toolCallsOfJournal(entries: readonly JournalEntry[]): CalledTool[] {
  return entries.flatMap((entry) => (entry.kind === 'tool' ? entry.data.calls.map(calledTool) : []));
}

/** The answer as JSON: the whole text, or a ```json fenced block in it. */
function answerAsJson(answer: string): unknown {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(answer)?.[1];
  for (const text of [answer, fenced]) {
    if (text === undefined || !/^\s*[[{"\d-]|^\s*(true|false|null)\s*$/.test(text)) continue;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // not JSON: try the next form
    }
  }
  return undefined;
}

export function subjectOf(
  evalCase: EvalCase,
  result: RunResult,
  toolCalls: CalledTool[],
  latencyMs: number,
): GradeSubject {
  const answer = result.answer ?? '';
  const output = result.state.output ?? answerAsJson(answer);
  const { inputTokens, outputTokens } = result.usage;
  return {
    case: evalCase,
    answer,
    ...(output !== undefined && { output }),
    toolCalls,
    status: result.status,
    stopReason: result.stopReason,
    tokens: { input: inputTokens, output: outputTokens, total: inputTokens + outputTokens },
    latencyMs,
  };
}
