// A pipeline made only of this file's stages, for recordings kept as fixtures: a change to a library stage cannot
// change what replaying them does. A turn asks the model, runs its tool calls, then tallies; the model's last reply
// answers. Also: a recorded run as JSON and back, to keep runs recorded by an earlier version of the code.
import { z } from 'zod';
import { definePipeline, type Pipeline } from '../../src/engine/pipeline.js';
import { breakLoop } from '../../src/engine/signal.js';
import type { Stage } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import type { ChatMessage, ToolCall } from '../../src/model/types.js';
import { makeOwner } from '../../src/store/location.js';
import type { Checkpoint, RunHeader, RunOutcomeRecord, RunStore, StoredEntry } from '../../src/store/types.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolResult } from '../../src/engine/tool-port.js';

const greet: Stage = {
  name: 'greet',
  execute(state) {
    state.messages.push(
      { role: 'system', content: 'Add the numbers with the calculator, one sum a turn.' },
      { role: 'user', content: state.input.task },
    );
  },
};

/** `live`: the request holds the state's own message list, which the run goes on adding to after the call. */
const ask = (live = false): Stage => ({
  name: 'ask',
  async execute(state, ctx) {
    const reply = await ctx.deps.model!.chat({
      purpose: 'think',
      messages: live ? state.messages : [...state.messages],
      tools: ctx.deps.tools!.definitions(),
    });
    state.messages.push({ role: 'assistant', content: reply.content, toolCalls: reply.toolCalls });
    state.turn = { toolCalls: reply.toolCalls, results: [] };
    if (reply.toolCalls.length > 0) return undefined;
    state.answer = reply.content;
    return breakLoop('answered');
  },
});

const run: Stage = {
  name: 'run',
  async execute(state, ctx) {
    if (state.turn.toolCalls.length === 0) return;
    const results = await ctx.deps.tools!.executeAll(state.turn.toolCalls);
    state.messages.push(...state.turn.toolCalls.map((call, index) => toolMessage(call, results[index]!)));
  },
};

function toolMessage(call: ToolCall, result: ToolResult): ChatMessage {
  return {
    role: 'tool',
    toolCallId: call.id,
    name: call.name,
    content: result.ok ? result.content : result.error.message,
  };
}

/** Keeps a running tally in the state; `drift` adds 10 more at that iteration (a change only the state shows). */
function tally(drift?: number): Stage {
  return {
    name: 'tally',
    execute(state, ctx) {
      const before = (state as RunState & { tally?: number }).tally ?? 0;
      Object.assign(state, { tally: before + (ctx.iteration === drift ? 11 : 1) });
    },
  };
}

export function recordingPipeline(options: { drift?: number; liveMessages?: boolean } = {}): Pipeline {
  return definePipeline({
    name: 'recording',
    setup: [greet],
    iteration: [ask(options.liveMessages), run, tally(options.drift)],
    finalize: [],
    maxIterations: 6,
  });
}

const calc = (expression: string) => ({ name: 'calculator', arguments: JSON.stringify({ expression }) });

/** Three sums, then the answer; `from` skips the replies already recorded. */
export function recordingModel(from = 0): ScriptedModel {
  return new ScriptedModel(
    [
      { toolCalls: [calc('1 + 2')] },
      { toolCalls: [calc('3 + 4')] },
      { toolCalls: [calc('5 + 6')] },
      { content: 'done: 11' },
    ].slice(from),
  );
}

/** A calculator that logs each execution (the side effect a resume must not repeat) and can be told to hang or act. */
export function recordingTools(
  log: string[],
  onCall: (expression: string) => void | Promise<void> = () => undefined,
): ToolRegistry {
  const calculator = defineTool({
    name: 'calculator',
    description: 'Evaluates a sum of two numbers like "2 + 3".',
    parameters: z.object({ expression: z.string() }),
    // It changes nothing (the log is the test's eye): a call a crash cut off runs again, never in doubt.
    effects: 'none',
    async execute({ expression }) {
      log.push(expression);
      await onCall(expression);
      const [left, right] = expression.split('+').map(Number);
      return String((left ?? 0) + (right ?? 0));
    },
  });
  return new ToolRegistry([calculator]);
}

/** A run as a store holds it, as JSON: its header, journal, checkpoints and (once it ended) its outcome. */
export interface RecordedRun {
  header: RunHeader;
  journal: StoredEntry[];
  checkpoints: Checkpoint[];
  outcome: RunOutcomeRecord | null;
}

export async function recordedRun(store: RunStore, runId: string): Promise<RecordedRun> {
  const run = (await store.get(runId))!;
  const { pipeline, fingerprint, version, input, options, createdAt, outcome } = run;
  return {
    header: { runId, pipeline, fingerprint, version, input, options, createdAt },
    journal: await store.journal(runId),
    checkpoints: await store.checkpoints(runId),
    outcome,
  };
}

/** Writes a recorded run into a store as its writer did: each checkpoint with the entries up to it. A run without an outcome stays running, held by this process. */
export async function loadRecordedRun(store: RunStore, recorded: RecordedRun): Promise<void> {
  const claim = await store.create(recorded.header, makeOwner(), 30_000);
  let written = 0;
  for (const checkpoint of recorded.checkpoints) {
    await store.append(claim, recorded.journal.slice(written, checkpoint.seq), { checkpoint });
    written = checkpoint.seq;
  }
  await store.append(claim, recorded.journal.slice(written));
  if (recorded.outcome !== null) await store.finish(claim, recorded.outcome);
}
