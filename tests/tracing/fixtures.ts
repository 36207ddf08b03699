// A small hand-built agent pipeline (prepare; think, act, observe; summarize) over the real ToolRegistry, for
// tracing tests that do not depend on the built-in pipelines.
import { z } from 'zod';
import { breakLoop, definePipeline, type Pipeline, type Stage } from '../../src/index.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry, type WrapToolCall } from '../../src/tools/registry.js';

const prepare: Stage = {
  name: 'prepare',
  async execute(state) {
    state.messages = [
      { role: 'system', content: 'You are a test agent.' },
      { role: 'user', content: state.input.task },
    ];
  },
};

const think: Stage = {
  name: 'think',
  async execute(state, ctx) {
    const response = await ctx.deps.model!.chat({ messages: state.messages, purpose: 'think' }, ctx.signal);
    state.messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
    state.turn = { toolCalls: response.toolCalls, results: [] };
    if (response.toolCalls.length === 0) {
      state.answer = response.content;
      return breakLoop('the model answered');
    }
  },
};

const act: Stage = {
  name: 'act',
  async execute(state, ctx) {
    const calls = state.turn.toolCalls;
    if (calls.length === 0) return;
    const results = await ctx.deps.tools!.executeAll(calls, ctx.signal);
    state.turn.results = calls.map((call, index) => ({ call, result: results[index]! }));
  },
};

const observe: Stage = {
  name: 'observe',
  async execute(state) {
    for (const { call, result } of state.turn.results) {
      state.messages.push({
        role: 'tool',
        toolCallId: call.id,
        name: call.name,
        content: result.ok ? result.content : result.error.message,
      });
    }
  },
};

const summarize: Stage = { name: 'summarize', async execute() {} };

export function agentPipeline(name = 'test-agent'): Pipeline {
  return definePipeline({
    name,
    setup: [prepare],
    iteration: [think, act, observe],
    finalize: [summarize],
    maxIterations: 5,
  });
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the `lookup` tool does with its query. */
export type LookupBehaviour = (query: string) => Promise<string> | string;

/** A registry with one `lookup` tool (default: echo after 2 ms), wired to `wrapCall`. */
export function lookupRegistry(
  behaviour: LookupBehaviour = async (query) => (await delay(2), `found ${query}`),
  wrapCall?: WrapToolCall,
): ToolRegistry {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a query up and returns what it found.',
    parameters: z.object({ q: z.string() }),
    execute: ({ q }) => behaviour(q),
  });
  return new ToolRegistry([lookup], wrapCall ? { wrapCall } : {});
}
