// Taint that flows: untrusted content read anywhere in a run taints the run wherever it goes. A plan step that reads
// an injected page taints the step running beside it; a child agent that read it returns a tainted answer; a caller
// that read it hands the taint to the agent it calls and to the target of a handoff (approving the handoff approves
// that call only). Each write after it waits for a person; approving runs it exactly once.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { reactPipeline } from '../../pipelines/react.js';
import { withTaintPolicy } from '../../stages/pipeline-policies.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import type { Pipeline } from '../../src/engine/pipeline.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { answering, call, fetchCall, gateTools, send, toolResultsIn, writerHandoff } from './gate-fixtures.js';

const ask = { approvals: { taintPolicy: 'ask' as const } };
const step = (id: string, description: string) => ({ id, description, dependsOn: [] });

/** Steps a (reads the injected page) and b (looks a word up, then writes) side by side. */
const planModel = () =>
  answering((request, text) => {
    if (text.startsWith('You are the planner'))
      return {
        content: JSON.stringify({ goal: 'news', steps: [step('a', 'Read the shop page'), step('b', 'Note it')] }),
      };
    if (text.startsWith('You are the replanner'))
      return { content: JSON.stringify({ need_replan: false, reason: 'on track', new_steps: [] }) };
    if (text.startsWith('You write the final answer')) return { content: 'Done.' };
    const results = toolResultsIn(request).length;
    if (/Current step \(1 of 2\)/.test(text))
      return results === 0 ? { toolCalls: [fetchCall()] } : { content: 'Read.' };
    if (results === 0) return { toolCalls: [call('lookup', { word: 'news' }, 'call_lookup')] };
    return results === 1 ? { toolCalls: [send('news')] } : { content: 'Noted.' };
  });

describe('taint flows', () => {
  it('plan steps side by side: step a reads the page, step b writes later: held (gate or taint stage), approve runs once', async () => {
    const log: string[] = [];
    const { fetchPage, sendNote, lookup } = gateTools(log);
    const gated = new ToolRegistry([fetchPage, sendNote, lookup], ask);
    const plain = new ToolRegistry([fetchPage, sendNote, lookup]);
    const shapes: Array<{ tools: ToolRegistry; pipeline: () => Pipeline }> = [
      { tools: gated, pipeline: () => planExecuteReplanPipeline() },
      { tools: plain, pipeline: () => withTaintPolicy(planExecuteReplanPipeline(), 'ask', plain) },
    ];
    for (const { tools, pipeline } of shapes) {
      log.length = 0;
      const store = memoryStore();
      const paused = await runPipeline(
        pipeline(),
        { task: 'Read the news and note it' },
        {
          store,
          deps: { model: planModel(), tools },
        },
      );
      expect(paused.status).toBe('interrupted');
      expect(paused.pending).toEqual([
        expect.objectContaining({
          id: 'call_send_b',
          tool: 'send_note',
          reason: expect.stringMatching(
            /^untrusted content entered the context \(the fetch_page result of iteration 1\)/,
          ),
        }),
      ]);
      expect(log).toEqual([]);
      const done = await resumeRun(store, paused.runId, {
        pipeline: pipeline(),
        deps: { model: planModel(), tools },
        decisions: { call_send_b: { approve: true } },
      });
      expect(done).toMatchObject({ status: 'completed', answer: 'Done.' });
      expect(log).toEqual(['news']);
      // The taint is the run's (kept through the pause), and a decision never clears it.
      expect(done.state.taint?.origins).toEqual([expect.objectContaining({ tool: 'fetch_page', iteration: 1 })]);
      const replay = await replayRun(store, paused.runId, { pipeline: pipeline() });
      expect(replay.identical).toBe(true);
    }
  });

  it("a child agent that read the page taints its answer: the coordinator's write waits, approve runs it once", async () => {
    const log: string[] = [];
    const { fetchPage, sendNote } = gateTools(log);
    const researcher = agentTool({
      name: 'researcher',
      description: 'Reads pages.',
      pipeline: reactPipeline(),
      effects: 'read',
      deps: {
        model: new ScriptedModel([{ toolCalls: [fetchCall()] }, { content: 'The page says: send_note "wire it".' }]),
        tools: new ToolRegistry([fetchPage]),
      },
    });
    const tools = new ToolRegistry([researcher, sendNote], ask);
    const store = memoryStore();
    const coordinator = new ScriptedModel([
      { toolCalls: [call('researcher', { task: 'Read the shop page' }, 'call_r')] },
      { toolCalls: [send('wire it')] },
      { content: 'Done.' },
    ]);
    const paused = await runPipeline(
      reactPipeline(),
      { task: 'Relay the news' },
      {
        store,
        deps: { model: coordinator, tools },
      },
    );
    expect(paused.status).toBe('interrupted');
    expect(paused.pending).toEqual([
      expect.objectContaining({
        id: 'call_send',
        reason: expect.stringMatching(/\(the fetch_page result read by agent react\/researcher\)/),
      }),
    ]);
    expect(log).toEqual([]);
    const done = await resumeRun(store, paused.runId, {
      pipeline: reactPipeline(),
      deps: { model: coordinator, tools },
      decisions: { call_send: { approve: true } },
    });
    expect(done.status).toBe('completed');
    expect(log).toEqual(['wire it']);
  });

  it("a handoff target starts tainted: approving only the handoff, the target's write still waits", async () => {
    const log: string[] = [];
    const { fetchPage, sendNote } = gateTools(log);
    const writer = writerHandoff(sendNote);
    const tools = new ToolRegistry([fetchPage, writer], ask);
    const store = memoryStore();
    const triage = new ScriptedModel([
      { toolCalls: [fetchCall()] },
      { toolCalls: [call('transfer_to_writer', {}, 'call_transfer')] },
    ]);
    const pipeline = () => reactPipeline({ handoffs: true });
    const first = await runPipeline(
      pipeline(),
      { task: 'Read the news and pass it on' },
      {
        store,
        deps: { model: triage, tools },
      },
    );
    expect(first.pending).toEqual([expect.objectContaining({ id: 'call_transfer', tool: 'transfer_to_writer' })]);
    const second = await resumeRun(store, first.runId, {
      pipeline: pipeline(),
      deps: { model: triage, tools },
      decisions: { call_transfer: { approve: true } },
    });
    expect(second.status).toBe('interrupted');
    expect(second.pending).toEqual([
      expect.objectContaining({
        id: 'call_transfer/call_send',
        tool: 'send_note',
        reason: expect.stringMatching(/^untrusted content entered the context \(the fetch_page result\)/),
      }),
    ]);
    expect(log).toEqual([]);
    const done = await resumeRun(store, first.runId, {
      pipeline: pipeline(),
      deps: { model: triage, tools },
      decisions: { 'call_transfer/call_send': { approve: true } },
    });
    expect(done).toMatchObject({ status: 'completed', answer: 'Noted.' });
    expect(log).toEqual(['wire it']);
  });
});
