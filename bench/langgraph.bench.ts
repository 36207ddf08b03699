// A recorded SQLite turn against LangGraph's: stageloop's durable runPipeline on its SQLite store against
// `createReactAgent` with `SqliteSaver`, in the same process, each a ReAct run of 10 turns (9 calls of a trivial
// zod-validated `add` tool, then the answer) with an instant in-process model. CPU time of the process per turn, the
// run's create, claim and finish included, median of rounds interleaved across the contenders. LangGraph is an
// optional contender: without @langchain/langgraph, @langchain/langgraph-checkpoint-sqlite and @langchain/core the
// bench measures stageloop alone and says so.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { reactPipeline } from '../pipelines/react.js';
import { runPipeline } from '../src/durable/durable-run.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/model/types.js';
import { sqliteStore } from '../src/store/sqlite-store.js';
import { defineTool } from '../src/tools/define-tool.js';
import { ToolRegistry } from '../src/tools/registry.js';
import { format, median } from './measure.js';

const turns = 10;
const runsPerRound = Number(process.env.LANGGRAPH_RUNS ?? 20);
const rounds = Number(process.env.LANGGRAPH_ROUNDS ?? 7);
const addArguments = z.object({ a: z.number(), b: z.number() });
const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };

/** Calls `add` until the conversation has `turns - 1` replies, then answers. */
const model: ChatModel = {
  provider: 'bench',
  modelName: 'bench',
  async chat(request: ChatRequest): Promise<ChatResponse> {
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    if (turn + 1 >= turns)
      return { content: 'done', toolCalls: [], finishReason: 'stop', usage, model: 'bench', latencyMs: 0 };
    return {
      content: '',
      toolCalls: [{ id: `call_${turn}`, name: 'add', arguments: `{"a":${turn},"b":2}` }],
      finishReason: 'tool_calls',
      usage,
      model: 'bench',
      latencyMs: 0,
    };
  },
};

type Contender = { name: string; run: () => Promise<void>; close: () => Promise<void> };

function folder(): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), 'stageloop-langgraph-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** `readOnly`: the same `add` declared `effects: 'none'`: no intent is written before its calls (a write tool's is). */
function stageloop(recorded: boolean, guards: boolean, readOnly = false): Contender {
  const place = folder();
  const store = recorded ? sqliteStore(join(place.path, 'runs.db')) : undefined;
  const tools = new ToolRegistry([
    defineTool({
      name: 'add',
      description: 'Adds two numbers.',
      parameters: addArguments,
      ...(readOnly && { effects: 'none' as const }),
      execute: async ({ a, b }) => String(a + b),
    }),
  ]);
  const pipeline = reactPipeline({ maxIterations: turns, ...(!guards && { guards: false as const }) });
  return {
    name: `stageloop, ${recorded ? 'SQLite store' : 'no store'}${guards ? '' : ', guards: false'}${readOnly ? ', read-only tool' : ''}`,
    run: async () => {
      const result = await runPipeline(
        pipeline,
        { task: 'add' },
        { deps: { model, tools }, ...(store !== undefined && { store }) },
      );
      if (result.iterations !== turns) throw new Error(`stageloop ran ${result.iterations} turns`);
    },
    close: async () => {
      await store?.close();
      place.remove();
    },
  };
}

/** The same run in LangGraph, or undefined when its packages are not installed. */
async function langgraph(): Promise<Contender | undefined> {
  const load = (name: string) => import(name) as Promise<Record<string, any>>;
  let modules: Array<Record<string, any>>;
  try {
    modules = await Promise.all(
      [
        '@langchain/langgraph/prebuilt',
        '@langchain/langgraph-checkpoint-sqlite',
        '@langchain/core/language_models/chat_models',
        '@langchain/core/messages',
        '@langchain/core/tools',
      ].map(load),
    );
  } catch {
    return undefined;
  }
  const [{ createReactAgent }, { SqliteSaver }, { BaseChatModel }, { AIMessage }, { tool }] = modules as [
    any,
    any,
    any,
    any,
    any,
  ];
  /** The same instant model as a LangChain chat model: a tool call until the conversation has `turns - 1` replies. */
  class InstantModel extends BaseChatModel {
    constructor() {
      super({});
    }
    _llmType(): string {
      return 'bench';
    }
    bindTools(): this {
      return this;
    }
    async _generate(messages: Array<{ type?: string; _getType?: () => string }>): Promise<unknown> {
      const turn = messages.filter((message) => (message.type ?? message._getType?.()) === 'ai').length;
      const message =
        turn + 1 >= turns
          ? new AIMessage({ content: 'done' })
          : new AIMessage({
              content: '',
              tool_calls: [{ id: `call_${turn}`, name: 'add', args: { a: turn, b: 2 }, type: 'tool_call' }],
            });
      return { generations: [{ text: String(message.content), message }] };
    }
  }
  const place = folder();
  const checkpointer = SqliteSaver.fromConnString(join(place.path, 'langgraph.db'));
  const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
    name: 'add',
    description: 'Adds two numbers.',
    schema: addArguments,
  });
  const agent = createReactAgent({ llm: new InstantModel(), tools: [add], checkpointSaver: checkpointer });
  let thread = 0;
  return {
    name: 'LangGraph createReactAgent + SqliteSaver',
    run: async () => {
      const result = await agent.invoke(
        { messages: [{ role: 'user', content: 'add' }] },
        { configurable: { thread_id: `bench-${thread++}` }, recursionLimit: 4 * turns },
      );
      const replies = (result.messages as Array<{ type?: string; _getType?: () => string }>).filter(
        (message) => (message.type ?? message._getType?.()) === 'ai',
      ).length;
      if (replies !== turns) throw new Error(`LangGraph ran ${replies} turns`);
    },
    close: async () => {
      checkpointer.db?.close?.();
      place.remove();
    },
  };
}

export async function run(): Promise<void> {
  const other = await langgraph();
  const contenders = [
    stageloop(false, true),
    stageloop(true, true),
    stageloop(true, true, true),
    stageloop(true, false),
    ...(other ? [other] : []),
  ];
  const samples = new Map<Contender, number[]>(contenders.map((contender) => [contender, []]));
  for (let round = -1; round < rounds; round++) {
    for (const contender of round % 2 === 0 ? contenders : [...contenders].reverse()) {
      const before = process.cpuUsage();
      for (let index = 0; index < runsPerRound; index++) await contender.run();
      const used = process.cpuUsage(before);
      if (round >= 0) samples.get(contender)!.push((used.user + used.system) / (runsPerRound * turns));
    }
  }
  console.log(
    `ReAct run of ${turns} turns, CPU µs per turn (the run's create, claim and finish included), median of ${rounds} rounds of ${runsPerRound} runs:`,
  );
  const perTurn = (contender: Contender) => median(samples.get(contender)!);
  for (const contender of contenders) console.log(`  ${contender.name.padEnd(48)} ${format(perTurn(contender), 0)} µs`);
  if (other === undefined)
    console.log(
      '  LangGraph not installed (@langchain/langgraph, @langchain/langgraph-checkpoint-sqlite, @langchain/core): no ratio',
    );
  else
    console.log(
      `  recorded stageloop turn / LangGraph turn: ${format(perTurn(contenders[1]!) / perTurn(other), 3)}x (target <= 0.05x); guards: false ${format(perTurn(contenders[2]!) / perTurn(other), 3)}x`,
    );
  for (const contender of contenders) await contender.close();
}
