// The agent bench's work, shared by its contenders (agent-contender.ts, one per process) and the in-process turn
// bench (turn.bench.ts): a ReAct run of a scripted model and an `add` tool, and the hand-written loop doing the same.
import { z } from 'zod';
import { reactPipeline } from '../pipelines/index.js';
import {
  runPipeline,
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ToolBox,
  type ToolResult,
} from '../src/index.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';

// Strict, as defineTool makes every tool schema; async, as real tools are: both sides do the same work.
const addArguments = z.strictObject({ a: z.number(), b: z.number() });
const add = async (args: z.infer<typeof addArguments>) => String(args.a + args.b);
const tools = new ToolRegistry([
  defineTool({ name: 'add', description: 'Adds two numbers.', parameters: addArguments, execute: add }),
]);
/** The same validation as the hand-written loop behind the ToolBox port: no timeout, abort or output cap per call. */
const leanTools: ToolBox = {
  definitions: () => tools.definitions(),
  executeAll(calls) {
    return Promise.all(
      calls.map(async (call): Promise<ToolResult> => {
        const parsed = addArguments.safeParse(JSON.parse(call.arguments));
        return parsed.success
          ? { ok: true, content: await add(parsed.data), durationMs: 0 }
          : {
              ok: false,
              error: { kind: 'invalid_arguments', message: parsed.error.message, retryable: false },
              durationMs: 0,
            };
      }),
    );
  },
};
const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };

/** A model that calls `add` until the conversation has `turns - 1` tool calls, then answers; optionally waits first. */
export function scriptedModel(turns: number, delayMs = 0): ChatModel {
  return {
    provider: 'bench',
    modelName: 'bench',
    async chat(request: ChatRequest): Promise<ChatResponse> {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      let turn = 0;
      for (const message of request.messages) if (message.role === 'assistant') turn++;
      if (turn + 1 >= turns)
        return { content: 'done', toolCalls: [], finishReason: 'stop', usage, model: 'bench', latencyMs: 0 };
      const call = { id: `call_${turn}`, name: 'add', arguments: `{"a":${turn},"b":2}` };
      return { content: '', toolCalls: [call], finishReason: 'tool_calls', usage, model: 'bench', latencyMs: 0 };
    },
  };
}

/** The same work without the engine: ask, validate, call, append, repeat. */
export async function handWrittenLoop(model: ChatModel, task: string, maxTurns: number): Promise<string> {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You can call add.' },
    { role: 'user', content: task },
  ];
  const definitions = tools.definitions();
  for (let turn = 0; turn < maxTurns; turn++) {
    const response = await model.chat({ messages: [...messages], tools: definitions, purpose: 'think' });
    if (response.toolCalls.length === 0) return response.content;
    messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
    for (const call of response.toolCalls) {
      const parsed = addArguments.safeParse(JSON.parse(call.arguments));
      const content = parsed.success ? await add(parsed.data) : `Error: ${parsed.error.message}`;
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
    }
  }
  return 'gave up';
}

export type Contender = 'engine' | 'unguarded' | 'lean' | 'loop';

export function starter(contender: Contender, turns: number, delayMs: number): () => Promise<unknown> {
  const model = scriptedModel(turns, delayMs);
  // 'unguarded': the same ReAct pipeline without its default guards (the floor the guards' cost is measured against).
  const pipeline = reactPipeline({
    maxIterations: turns,
    ...(contender === 'unguarded' && { guards: false as const }),
  });
  if (contender === 'loop') return () => handWrittenLoop(model, 'add', turns);
  const deps = { model, tools: contender === 'lean' ? leanTools : tools };
  return () => runPipeline(pipeline, { task: 'add' }, { deps });
}
