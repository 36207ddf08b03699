// Red team for the tool gate, per context (issue 39): in plan steps side by side, a child agent and a handoff, a run
// that must not ask does not: a write with no untrusted content anywhere in the run, and read-only tools after
// untrusted content, run without a question (the taint policy is `ask` throughout). The runs that must ask are in
// gate-taint-flow.test.ts.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { reactPipeline } from '../../pipelines/react.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import { runPipeline } from '../../src/durable/durable-run.js';
import type { Pipeline } from '../../src/engine/pipeline.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel, type ScriptedReply } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { Tool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { answering, call, fetchCall, gateTools, send, toolResultsIn, writerHandoff } from './gate-fixtures.js';

const ask = { approvals: { taintPolicy: 'ask' as const } };
const step = (id: string, description: string) => ({ id, description, dependsOn: [] });
const lookupCall = (word: string) => call('lookup', { word }, `call_lookup_${word}`);

/** Runs to the end and says whether anyone was asked. */
async function runAsked(pipeline: Pipeline, model: ScriptedModel, tools: ToolRegistry) {
  const events: RunEvent[] = [];
  const result = await runPipeline(
    pipeline,
    { task: 'Do the work' },
    { store: memoryStore(), deps: { model, tools, onEvent: (event) => events.push(event) } },
  );
  return { result, asked: events.filter((event) => event.type === 'approval_requested') };
}

/** Steps a and b side by side: a makes `first`, b looks a word up and then makes `then` (if any). */
const planModel = (first: ScriptedReply, then?: ScriptedReply) =>
  answering((request, text) => {
    if (text.startsWith('You are the planner'))
      return { content: JSON.stringify({ goal: 'news', steps: [step('a', 'Read it'), step('b', 'Note it')] }) };
    if (text.startsWith('You are the replanner'))
      return { content: JSON.stringify({ need_replan: false, reason: 'on track', new_steps: [] }) };
    if (text.startsWith('You write the final answer')) return { content: 'Done.' };
    const results = toolResultsIn(request).length;
    if (/Current step \(1 of 2\)/.test(text)) return results === 0 ? first : { content: 'Read.' };
    if (results === 0) return { toolCalls: [lookupCall('news')] };
    return results === 1 && then !== undefined ? then : { content: 'Noted.' };
  });

describe('red team: a run that must not ask does not, in every context', () => {
  it('plan steps side by side: a write with nothing untrusted read, and a lookup after a page was read', async () => {
    const log: string[] = [];
    const { fetchPage, sendNote, lookup } = gateTools(log);
    const tools = new ToolRegistry([fetchPage, sendNote, lookup], ask);
    const clean = await runAsked(
      planExecuteReplanPipeline(),
      planModel({ toolCalls: [lookupCall('shop')] }, { toolCalls: [send('news', 'call_send_b')] }),
      tools,
    );
    expect([clean.result.status, clean.asked]).toEqual(['completed', []]);
    expect(log).toEqual(['news']);
    const readOnly = await runAsked(
      planExecuteReplanPipeline(),
      planModel({ toolCalls: [fetchCall()] }, { toolCalls: [lookupCall('more')] }),
      tools,
    );
    expect([readOnly.result.status, readOnly.asked]).toEqual(['completed', []]);
    expect(log).toEqual(['news']);
  });

  it('a child agent: the coordinator writes after a child that read nothing untrusted; reads after one that did', async () => {
    const log: string[] = [];
    const { fetchPage, sendNote, lookup } = gateTools(log);
    const researcher = (tools: Tool[], first: ScriptedReply) =>
      agentTool({
        name: 'researcher',
        description: 'Looks things up.',
        pipeline: reactPipeline(),
        effects: 'read',
        deps: { model: new ScriptedModel([first, { content: 'Found it.' }]), tools: new ToolRegistry(tools, ask) },
      });
    const coordinator = (then: ScriptedReply) =>
      new ScriptedModel([
        { toolCalls: [call('researcher', { task: 'Look it up' }, 'call_r')] },
        then,
        { content: 'Done.' },
      ]);
    const clean = await runAsked(
      reactPipeline(),
      coordinator({ toolCalls: [send('found')] }),
      new ToolRegistry([researcher([lookup], { toolCalls: [lookupCall('shop')] }), sendNote], ask),
    );
    expect([clean.result.status, clean.asked]).toEqual(['completed', []]);
    expect(log).toEqual(['found']);
    const readOnly = await runAsked(
      reactPipeline(),
      coordinator({ toolCalls: [lookupCall('more')] }),
      new ToolRegistry([researcher([fetchPage], { toolCalls: [fetchCall()] }), sendNote, lookup], ask),
    );
    expect([readOnly.result.status, readOnly.asked]).toEqual(['completed', []]);
    expect(log).toEqual(['found']);
  });

  it("a handoff: the target's write on a conversation with nothing untrusted in it runs without a question", async () => {
    const log: string[] = [];
    const { sendNote, lookup } = gateTools(log);
    const writer = writerHandoff(sendNote);
    const triage = new ScriptedModel([
      { toolCalls: [lookupCall('news')] },
      { toolCalls: [call('transfer_to_writer', {}, 'call_transfer')] },
    ]);
    const handed = await runAsked(reactPipeline({ handoffs: true }), triage, new ToolRegistry([lookup, writer], ask));
    expect(handed.result).toMatchObject({ status: 'completed', answer: 'Noted.' });
    expect(handed.asked).toEqual([]);
    expect(log).toEqual(['wire it']);
  });
});
