// The gate's repeat rule (`approvals: { repeatedCalls: { limit } }`, what `--on-repeat ask` sets): a call that already
// failed `limit - 1` times in a row waits for a person as any approval does, whatever the pipeline's shape (one built
// by hand, without the repeated-call guard). Approved, it runs once more; rejected, the model reads why and the call
// never runs again. The streak is written by act from the gate's marks, so the run replays identical.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { act, observe, think } from '../../stages/index.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline as runUnrecorded } from '../../src/engine/runner.js';
import type { ChatRequest } from '../../src/model/types.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { call } from './gate-fixtures.js';

const handBuilt = () =>
  definePipeline({ name: 'hand-built', iteration: [think(), act(), observe()], maxIterations: 8 });

/** A tool that fails every time (n < 0) or answers; each execution logged. */
function flakyTools(log: number[]) {
  const flaky = defineTool({
    name: 'flaky',
    description: 'Fails for negative numbers.',
    parameters: z.object({ n: z.number() }),
    effects: 'read',
    execute: ({ n }) => {
      log.push(n);
      if (n < 0) throw new Error('service unavailable');
      return `ok ${n}`;
    },
  });
  return new ToolRegistry([flaky], { approvals: { repeatedCalls: { limit: 3 } } });
}

const failing = (id: string) => ({ toolCalls: [call('flaky', { n: -1 }, id)] });
const toolMessage = (request: ChatRequest, id: string) =>
  request.messages.find((message) => message.role === 'tool' && message.toolCallId === id)?.content;

describe("the gate's repeat rule", () => {
  it('a pipeline built by hand: the 3rd identical failing call pauses as an approval; approve runs it once more; replay identical', async () => {
    const log: number[] = [];
    const tools = flakyTools(log);
    const store = memoryStore();
    const model = new ScriptedModel([failing('call_1'), failing('call_2'), failing('call_3')]);
    const paused = await runPipeline(
      handBuilt(),
      { task: 'Try' },
      { store, hashEvery: 'stage', deps: { model, tools } },
    );
    expect(paused.status).toBe('interrupted');
    expect(paused.stopReason).toMatchObject({ kind: 'awaiting_approval', stage: 'act' });
    expect(paused.pending).toEqual([
      {
        id: 'call_3',
        kind: 'tool_approval',
        tool: 'flaky',
        arguments: '{"n":-1}',
        reason: expect.stringMatching(
          /^a repeated, identical call to flaky that already failed 2 times in a row \(last error: .*service unavailable/,
        ),
      },
    ]);
    expect(log).toEqual([-1, -1]);
    const rest = new ScriptedModel([{ content: 'It keeps failing.' }]);
    const done = await resumeRun(store, paused.runId, {
      pipeline: handBuilt(),
      deps: { model: rest, tools },
      decisions: { call_3: { approve: true } },
    });
    expect(done).toMatchObject({ status: 'completed', answer: 'It keeps failing.' });
    expect(log).toEqual([-1, -1, -1]);
    expect(toolMessage(rest.requests[0]!, 'call_3')).toMatch(/service unavailable/);
    const replay = await replayRun(store, paused.runId, { pipeline: handBuilt() });
    expect(replay.divergence).toBeUndefined();
    expect(replay.identical).toBe(true);
    expect(log).toEqual([-1, -1, -1]);
  });

  it('rejected: the model reads the message; the same call asked again is refused, never run', async () => {
    const log: number[] = [];
    const tools = flakyTools(log);
    const store = memoryStore();
    const model = new ScriptedModel([failing('call_1'), failing('call_2'), failing('call_3')]);
    const paused = await runPipeline(handBuilt(), { task: 'Try' }, { store, deps: { model, tools } });
    const rest = new ScriptedModel([failing('call_4'), { content: 'Gave up.' }]);
    const done = await resumeRun(store, paused.runId, {
      pipeline: handBuilt(),
      deps: { model: rest, tools },
      decisions: { call_3: { approve: false, message: 'use n = 1' } },
    });
    expect(done).toMatchObject({ status: 'completed', answer: 'Gave up.' });
    expect(toolMessage(rest.requests[0]!, 'call_3')).toMatch(/rejected this call: use n = 1/);
    expect(toolMessage(rest.requests[1]!, 'call_4')).toMatch(/a person rejected this repeated, identical call/);
    expect(log).toEqual([-1, -1]);
  });

  it('reactPipeline with onRepeat ask: asked live through deps.approve; asking again after a rejection ends the run', async () => {
    const log: number[] = [];
    const asked: string[] = [];
    const model = new ScriptedModel([failing('call_1'), failing('call_2'), failing('call_3'), failing('call_4')]);
    const result = await runUnrecorded(
      reactPipeline({ guards: { onRepeat: 'ask' } }),
      { task: 'Try' },
      {
        deps: {
          model,
          tools: flakyTools(log),
          approve: async (request) => (asked.push(request.id), { approve: false, message: 'stop that' }),
        },
      },
    );
    expect(asked).toEqual(['call_3']);
    expect(result.stopReason.kind).toBe('loop_detected');
    expect(log).toEqual([-1, -1]);
  });

  it('a run must not ask: identical calls that succeed, and failing calls with other arguments', async () => {
    const log: number[] = [];
    const calls = [1, 1, 1, 1, -1, -2, -3].map((n, index) => ({ toolCalls: [call('flaky', { n }, `call_${index}`)] }));
    const model = new ScriptedModel([...calls, { content: 'Done.' }]);
    const result = await runUnrecorded(handBuilt(), { task: 'Try' }, { deps: { model, tools: flakyTools(log) } });
    expect(result).toMatchObject({ status: 'completed', answer: 'Done.' });
    expect(log).toEqual([1, 1, 1, 1, -1, -2, -3]);
  });

  it("onRepeat 'ask' with tools that have no repeat rule is a config error naming the option", async () => {
    const tools = new ToolRegistry(flakyTools([]).names.map((name) => flakyTools([]).get(name)!));
    const model = new ScriptedModel([failing('call_1'), { content: 'Done.' }]);
    const result = await runUnrecorded(
      reactPipeline({ guards: { onRepeat: 'ask' } }),
      { task: 'Try' },
      { deps: { model, tools } },
    );
    expect(result.status).toBe('failed');
    expect(result.error?.message).toMatch(/approvals: \{ repeatedCalls: \{ limit \} \}/);
  });
});
