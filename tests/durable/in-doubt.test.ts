// Intent before effect, in one process: a write call's intent is on disk before it runs; a run cut off inside the
// call (its process abandoned, the run taken over) holds it in doubt on resume as a person's decision; approve runs
// it again, reject skips it and the model reads the message; idempotent and read-only calls run again by themselves.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/react.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import type { Decision } from '../../src/engine/decision-types.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { RunStore } from '../../src/store/types.js';
import { defineTool, type ToolEffects } from '../../src/tools/define-tool.js';
import { idempotencyKeyOf } from '../../src/tools/call-context.js';
import { ToolRegistry } from '../../src/tools/registry.js';

const pipeline = reactPipeline({ guards: false });
const runId = 'run-once';
const call = { id: 'c1', name: 'append_line', arguments: JSON.stringify({ text: 'paid 10' }) };

let folder: string;
let file: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'stageloop-in-doubt-'));
  file = join(folder, 'lines.txt');
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

const lines = (): string[] => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []);

interface Traits {
  effects?: ToolEffects;
  idempotent?: boolean;
}

/** Appends "KEY\tTEXT"; an idempotent one appends nothing when its key is already there. `during`: called inside each
 * call after its line is written (the first attempt never returns from it: its process is taken to be dead). */
function appendTool(traits: Traits, during?: () => Promise<void>) {
  return defineTool({
    name: 'append_line',
    description: 'Appends a line to the file.',
    parameters: z.object({ text: z.string() }),
    ...traits,
    async execute({ text }, ctx) {
      if (!(traits.idempotent === true && lines().some((line) => line.startsWith(`${ctx.idempotencyKey}\t`))))
        appendFileSync(file, `${ctx.idempotencyKey}\t${text}\n`);
      await during?.();
      return 'appended';
    },
  });
}

/** Starts the run and leaves it inside its tool call (as a process killed there), once the call has written its line. */
async function cutOffInside(store: RunStore, traits: Traits): Promise<void> {
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const never = new Promise<void>(() => undefined);
  const tools = new ToolRegistry([appendTool(traits, () => (entered(), never))]);
  const model = new ScriptedModel([{ toolCalls: [call] }, { content: 'never asked' }]);
  void runPipeline(pipeline, { task: 'pay' }, { store, runId, deps: { model, tools } });
  await inside;
}

/** Resumes with a fresh process's tools and a model that answers once, taking the run over from the dead owner. */
async function resume(
  store: RunStore,
  traits: Traits,
  decisions?: Record<string, Decision>,
): Promise<{ result: Awaited<ReturnType<typeof resumeRun>>; events: RunEvent[]; model: ScriptedModel }> {
  const events: RunEvent[] = [];
  const model = new ScriptedModel([{ content: 'done' }]);
  const deps = {
    model,
    tools: new ToolRegistry([appendTool(traits)]),
    onEvent: (event: RunEvent) => events.push(event),
  };
  const result = await resumeRun(store, runId, {
    pipeline,
    deps,
    takeOver: true,
    ...(decisions !== undefined && { decisions }),
  });
  return { result, events, model };
}

describe('a call that may write, cut off by a crash', () => {
  it('has its intent (call id, tool, arguments) on disk before it runs', async () => {
    const store = memoryStore();
    await cutOffInside(store, {});
    const journal = await store.journal(runId);
    const kinds = journal.map((entry) => entry.kind);
    expect(kinds).toContain('intent');
    expect(kinds.indexOf('intent')).toBeGreaterThan(kinds.lastIndexOf('model'));
    expect(journal.find((entry) => entry.kind === 'intent')!.data).toEqual({ calls: [call] });
    expect(kinds).not.toContain('tool');
  });

  it('is in doubt on resume: the run waits for a person, and approve runs it again under the same key', async () => {
    const store = memoryStore();
    await cutOffInside(store, {});
    const first = await resume(store, {});
    expect(first.result.status).toBe('interrupted');
    expect(first.result.pending).toEqual([
      expect.objectContaining({ id: 'c1', kind: 'in_doubt', tool: 'append_line' }),
    ]);
    expect(first.events.filter((event) => event.type === 'call_in_doubt').map((event) => event.data)).toEqual([
      { callId: 'c1', tool: 'append_line' },
    ]);
    expect(lines()).toHaveLength(1);

    const approved = await resume(store, {}, { c1: { approve: true } });
    expect(approved.result).toMatchObject({ status: 'completed', answer: 'done' });
    // Twice only because a person approved the re-run; both attempts carried one key.
    expect(lines()).toEqual([`${idempotencyKeyOf({ runId, iteration: 1 }, 'c1')}\tpaid 10`, lines()[0]]);
    expect((await replayRun(store, runId, { pipeline })).identical).toBe(true);
  });

  it('reject skips it, and the model reads the message in place of a result', async () => {
    const store = memoryStore();
    await cutOffInside(store, {});
    expect((await resume(store, {})).result.status).toBe('interrupted');
    const rejected = await resume(store, {}, { c1: { approve: false, message: 'it did run; the result was ok' } });
    expect(rejected.result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(lines()).toHaveLength(1);
    const toolMessage = rejected.model.requests[0]!.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain('it did run; the result was ok');
    expect((await replayRun(store, runId, { pipeline })).identical).toBe(true);
  });

  it('an idempotent tool runs again by itself with the same key (and does its effect once)', async () => {
    const store = memoryStore();
    await cutOffInside(store, { idempotent: true });
    const resumed = await resume(store, { idempotent: true });
    expect(resumed.result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(resumed.events.some((event) => event.type === 'call_in_doubt')).toBe(false);
    expect(lines()).toHaveLength(1);
    expect((await replayRun(store, runId, { pipeline })).identical).toBe(true);
  });

  it('a read-only tool writes no intent and runs again silently', async () => {
    const store = memoryStore();
    await cutOffInside(store, { effects: 'read' });
    expect((await store.journal(runId)).map((entry) => entry.kind)).not.toContain('intent');
    const resumed = await resume(store, { effects: 'read' });
    expect(resumed.result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(lines()).toHaveLength(2);
  });
});
