// A small hand-built agent pipeline (prepare; think, act, observe; summarize) and a ToolBox that calls a
// wrapCall seam the way the tool registry does, for tracing tests independent of the built-in pipelines.
import { breakLoop, definePipeline, type Pipeline, type Stage } from '../../src/index.js';
import type { ToolCall } from '../../src/model/types.js';
import type { ToolBox, ToolResult } from '../../src/tools/types.js';
import type { ToolCallWrapper } from '../../src/tracing/tool-spans.js';

const prepare: Stage = {
  name: 'prepare',
  async execute(state) {
    state.messages = [{ role: 'system', content: 'You are a test agent.' }, { role: 'user', content: state.input.task }];
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
      state.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.ok ? result.content : result.error.message });
    }
  },
};

const summarize: Stage = { name: 'summarize', async execute() {} };

export function agentPipeline(name = 'test-agent'): Pipeline {
  return definePipeline({ name, setup: [prepare], iteration: [think, act, observe], finalize: [summarize], maxIterations: 5 });
}

export type ToolImplementation = (call: ToolCall, signal?: AbortSignal) => Promise<ToolResult>;

/** Runs every call in parallel through `wrapCall`, like the registry; never rejects. */
export function testToolBox(implementation: ToolImplementation, wrapCall?: ToolCallWrapper): ToolBox {
  return {
    definitions: () => [],
    executeAll(calls, signal) {
      return Promise.all(calls.map((call) => (wrapCall ? wrapCall(call, () => implementation(call, signal)) : implementation(call, signal))));
    },
  };
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A tool that echoes its arguments after `ms` milliseconds. */
export function echoTool(ms = 2): ToolImplementation {
  return async (call) => {
    await delay(ms);
    return { ok: true, content: `echo ${call.arguments}`, durationMs: ms };
  };
}
