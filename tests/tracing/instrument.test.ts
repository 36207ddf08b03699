// instrumentDeps: a span per tool call for any tool box that can wrap its calls (asked by capability, not by class),
// around a wrapper the box already has; a box that cannot is left as is and traced at its stage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline, type Deps, type ToolBox, type ToolResult, type WrapToolCall } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { instrumentDeps } from '../../src/tracing/instrument.js';
import { agentPipeline, lookupRegistry } from './fixtures.js';
import { enableAsyncContext, makeTracing, singleTree, treeLines } from './span-tree.js';

let disableContext: () => void;
beforeAll(() => void (disableContext = enableAsyncContext()));
afterAll(() => disableContext());

const lookupCall = { toolCalls: [{ name: 'lookup', arguments: '{"q":"a"}' }] };

/** A tool box of its own (no ToolRegistry): answers every call with `found`, running each through its wrapper. */
function ownBox(wrap?: WrapToolCall, canWrap = true): ToolBox {
  const run = (): Promise<ToolResult> => Promise.resolve({ ok: true, content: 'found', durationMs: 0 });
  const box: ToolBox = {
    definitions: () => [{ name: 'lookup', description: 'Looks up.', parameters: { type: 'object' }, strict: false }],
    executeAll: (calls) => Promise.all(calls.map((call) => (wrap === undefined ? run() : wrap(call, run)))),
  };
  if (canWrap)
    box.wrappingCalls = (outer) =>
      ownBox(wrap === undefined ? outer : (call, execute) => outer(call, () => wrap(call, execute)));
  return box;
}

async function treeOf(tools: ToolBox): Promise<string[]> {
  const tracing = makeTracing();
  const model = new ScriptedModel([lookupCall, { content: 'done' }]);
  const result = await runPipeline(
    agentPipeline(),
    { task: 'look it up' },
    { deps: instrumentDeps({ model, tools }, { tracer: tracing.tracer }) },
  );
  expect(result.status).toBe('completed');
  const tree = treeLines(singleTree(tracing.spans()));
  await tracing.shutdown();
  return tree;
}

const toolSpanUnderAct = (tree: string[]) =>
  tree.slice(tree.indexOf('    stage act'), tree.indexOf('    stage act') + 2);

describe('instrumentDeps', () => {
  it('gives a span per call to a tool box of its own that offers wrappingCalls', async () => {
    expect(toolSpanUnderAct(await treeOf(ownBox()))).toEqual(['    stage act', '      execute_tool lookup']);
  });

  it('runs the span around the wrapper a box already has, and keeps that wrapper working', async () => {
    const wrapped: string[] = [];
    const registry = lookupRegistry(undefined, (call, execute) => (wrapped.push(call.name), execute()));
    expect(toolSpanUnderAct(await treeOf(registry))).toEqual(['    stage act', '      execute_tool lookup']);
    expect(wrapped).toEqual(['lookup']);
    const own: string[] = [];
    expect(toolSpanUnderAct(await treeOf(ownBox((call, execute) => (own.push(call.id), execute()))))).toEqual([
      '    stage act',
      '      execute_tool lookup',
    ]);
    expect(own).toHaveLength(1);
  });

  it('leaves a box that cannot wrap its calls as it is: its calls are traced at the stage only', async () => {
    const box = ownBox(undefined, false);
    expect(instrumentDeps({ tools: box }).tools).toBe(box);
    const tree = await treeOf(box);
    expect(toolSpanUnderAct(tree)).toEqual(['    stage act', '    stage observe']);
    expect(tree.some((line) => line.includes('execute_tool'))).toBe(false);
  });
});

describe('no SDK registered', () => {
  it('a run gets the caller’s own onEvent (no events built for telemetry that goes nowhere); with an SDK, the telemetry’s', async () => {
    const seen: string[] = [];
    const mine = (event: { type: string }) => void seen.push(event.type);
    const untraced = instrumentDeps({ onEvent: mine });
    expect(untraced.onEvent).toBe(mine);
    expect(instrumentDeps({} as Partial<Deps>).onEvent).toBeUndefined();
    const traced = instrumentDeps({ onEvent: mine }, { tracer: makeTracing().tracer });
    expect(traced.onEvent).not.toBe(mine);
    // The caller's listener still hears the run either way.
    await runPipeline(
      agentPipeline(),
      { task: 't' },
      { deps: { ...untraced, model: new ScriptedModel([{ content: 'a' }]) } },
    );
    expect(seen).toContain('run_finished');
  });
});
