// The tool gate: every call of a run passes it whatever the pipeline's shape. A pipeline built by hand from the
// stages without an approval stage, a custom stage that calls ctx.deps.tools itself and a plain reactPipeline() all
// hold a call that needs a person (the tool's needsApproval, the registry's approvals, a write after untrusted
// content); approving continues the run and the call runs exactly once. Red-team cases for a run that must not ask.
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { act, observe, think } from '../../stages/index.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import type { ApprovalRequest } from '../../src/durable/decisions.js';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline as runUnrecorded } from '../../src/engine/runner.js';
import { breakLoop } from '../../src/engine/signal.js';
import type { RunEvent, Stage } from '../../src/engine/stage.js';
import type { ToolResult } from '../../src/engine/tool-port.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { call, fetchCall, gateTools, send } from './gate-fixtures.js';

const handBuilt = () =>
  definePipeline({ name: 'hand-built', iteration: [think(), act(), observe()], maxIterations: 6 });

describe('the gate holds a call whatever the pipeline', () => {
  it('a pipeline built by hand without an approval stage: needsApproval pauses, approve runs the call once', async () => {
    const log: string[] = [];
    const { sendNote } = gateTools(log, true);
    const tools = new ToolRegistry([sendNote]);
    const store = memoryStore();
    const model = new ScriptedModel([{ toolCalls: [send('hello')] }]);
    const paused = await runPipeline(handBuilt(), { task: 'Send hello' }, { store, deps: { model, tools } });
    expect(paused.status).toBe('interrupted');
    expect(paused.stopReason.kind).toBe('awaiting_approval');
    expect(paused.pending).toEqual([
      {
        id: 'call_send',
        kind: 'tool_approval',
        tool: 'send_note',
        arguments: '{"text":"hello"}',
        reason: 'the send_note tool asks for approval of every call',
      },
    ]);
    expect(log).toEqual([]);
    const rest = new ScriptedModel([{ content: 'Sent.' }]);
    const done = await resumeRun(store, paused.runId, {
      pipeline: handBuilt(),
      deps: { model: rest, tools },
      decisions: { call_send: { approve: true } },
    });
    expect(done).toMatchObject({ status: 'completed', answer: 'Sent.' });
    expect(log).toEqual(['hello']);
    const replay = await replayRun(store, paused.runId, { pipeline: handBuilt() });
    expect(replay.divergence).toBeUndefined();
    expect(replay.identical).toBe(true);
    expect(log).toEqual(['hello']);
  });

  it('a plain reactPipeline() asks deps.approve with the arguments as an object; approve runs once, reject never', async () => {
    for (const approve of [true, false]) {
      const log: string[] = [];
      const { sendNote } = gateTools(log, true);
      const asked: ApprovalRequest[] = [];
      const events: RunEvent[] = [];
      const model = new ScriptedModel([{ toolCalls: [send('hello')] }, { content: 'Done.' }]);
      const result = await runUnrecorded(
        reactPipeline(),
        { task: 'Send hello' },
        {
          deps: {
            model,
            tools: new ToolRegistry([sendNote]),
            onEvent: (event) => events.push(event),
            approve: async (request) => {
              asked.push(request);
              return approve ? { approve: true } : { approve: false, message: 'not today' };
            },
          },
        },
      );
      expect(result.status).toBe('completed');
      expect(asked).toEqual([
        {
          id: 'call_send',
          tool: 'send_note',
          arguments: { text: 'hello' },
          argumentsJson: '{"text":"hello"}',
          reason: 'the send_note tool asks for approval of every call',
        },
      ]);
      expect(log).toEqual(approve ? ['hello'] : []);
      const requested = events.filter((event) => event.type === 'approval_requested').map((event) => event.data);
      expect(requested).toEqual([expect.objectContaining({ id: 'call_send', arguments: '{"text":"hello"}' })]);
    }
  });

  it('a custom stage that calls ctx.deps.tools itself gets the held call back, never run', async () => {
    const log: string[] = [];
    const { sendNote, fetchPage, lookup } = gateTools(log);
    const needs = gateTools(log, true).sendNote;
    const cases: Array<{ tools: ToolRegistry; calls: ReturnType<typeof call>[]; reason: RegExp }> = [
      { tools: new ToolRegistry([needs]), calls: [send('a')], reason: /send_note tool asks for approval/ },
      {
        tools: new ToolRegistry([sendNote], { approvals: { tools: ['send_note'] } }),
        calls: [send('b')],
        reason: /asks for approval of every send_note call/,
      },
      {
        tools: new ToolRegistry([fetchPage, sendNote, lookup], { approvals: { taintPolicy: 'ask' } }),
        calls: [fetchCall(), send('c', 'call_later')],
        reason: /^untrusted content entered the context \(the fetch_page result of iteration 1\)/,
      },
    ];
    for (const { tools, calls, reason } of cases) {
      const seen: ToolResult[] = [];
      const direct: Stage = {
        name: 'direct',
        async execute(_state, ctx) {
          // One call at a time, as a stage that reads each result first would make them.
          for (const each of calls) seen.push(...(await ctx.deps.tools!.executeAll([each])));
          return breakLoop('done');
        },
      };
      const pipeline = definePipeline({ name: 'direct-calls', iteration: [direct], maxIterations: 1 });
      await runPipeline(pipeline, { task: 'x' }, { store: memoryStore(), deps: { tools } });
      const held = seen.at(-1)!;
      expect(held.ok).toBe(false);
      if (held.ok) continue;
      expect(held.error.kind).toBe('paused');
      expect(held.error.pending?.[0]?.reason).toMatch(reason);
    }
    expect(log).toEqual([]);
  });

  it('a run that may hold a call but can neither ask nor pause is refused at start, naming the tool', async () => {
    const log: string[] = [];
    const { sendNote } = gateTools(log, true);
    const model = new ScriptedModel([{ toolCalls: [send('x')] }]);
    await expect(
      runUnrecorded(reactPipeline(), { task: 'x' }, { deps: { model, tools: new ToolRegistry([sendNote]) } }),
    ).rejects.toMatchObject({
      code: 'config',
      message: expect.stringMatching(/^the send_note tool needs a person's approval before it runs, but this run can/),
    });
    expect(model.requests).toEqual([]);
    expect(log).toEqual([]);
  });
});

describe('red team: a run that must not ask does not', () => {
  it('read-only tools after untrusted content, and a write with no untrusted content, run without a question', async () => {
    const log: string[] = [];
    const { sendNote, fetchPage, lookup } = gateTools(log);
    const scripts = [
      [{ toolCalls: [fetchCall()] }, { toolCalls: [call('lookup', { word: 'news' }, 'call_lookup')] }],
      [{ toolCalls: [call('lookup', { word: 'hi' }, 'call_lookup')] }, { toolCalls: [send('hi')] }],
    ];
    for (const script of scripts) {
      const events: RunEvent[] = [];
      const result = await runPipeline(
        reactPipeline(),
        { task: 'x' },
        {
          store: memoryStore(),
          deps: {
            model: new ScriptedModel([...script, { content: 'Done.' }]),
            tools: new ToolRegistry([fetchPage, sendNote, lookup], { approvals: { taintPolicy: 'ask' } }),
            onEvent: (event) => events.push(event),
          },
        },
      );
      expect(result.status).toBe('completed');
      expect(events.filter((event) => event.type === 'approval_requested')).toEqual([]);
    }
    expect(log).toEqual(['hi']);
  });
});
