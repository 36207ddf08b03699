// A traced ReAct turn against the AI SDK's traced turn, in the same process and rounds: the same scripted 10-turn
// tool loop (a tool call on every turn but the last, a trivial echo tool, an instant model) through the AI SDK's
// generateText with experimental_telemetry on (its MockLanguageModelV3 from `ai/test`), and through stageloop's
// reactPipeline with instrumentDeps; both into the same SDK (batch processor, in-memory exporter, ALS context).
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { z } from 'zod';
import { instrumentDeps } from '../src/tracing/instrument.js';
import { format, median } from './measure.js';
import { benchTracerProvider, cpuPerTurn, plainDeps, reactRun, withAsyncContext } from './tracing-work.js';

const turnsPerRun = 10;
const runsPerSample = 20;
const samples = 25;
/** The goal: a traced stageloop turn at most this share of the AI SDK's traced turn. */
const goal = 0.3;

/** The AI SDK's side of the script: the same answers InstantModel gives, in the provider's V3 shapes. */
function scriptedGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
  const turn = options.prompt.filter((message) => message.role === 'assistant').length + 1;
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 2, text: 2, reasoning: 0 },
  };
  if (turn < turnsPerRun)
    return Promise.resolve({
      content: [{ type: 'tool-call', toolCallId: `call_${turn}`, toolName: 'echo', input: `{"text":"turn ${turn}"}` }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    });
  return Promise.resolve({
    content: [{ type: 'text', text: 'done' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  });
}

const echo = tool({
  description: 'Returns its text.',
  inputSchema: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

export async function run(): Promise<void> {
  const { provider, tracer, flushed } = benchTracerProvider();
  const stageloopRun = reactRun(turnsPerRun);
  const aiSdkRun = async () => {
    const result = await generateText({
      model: new MockLanguageModelV3({ doGenerate: scriptedGenerate }),
      tools: { echo },
      stopWhen: stepCountIs(turnsPerRun),
      prompt: 'bench',
      experimental_telemetry: { isEnabled: true, tracer },
    });
    if (result.steps.length !== turnsPerRun) throw new Error(`AI SDK run took ${result.steps.length} steps`);
  };
  const spansPerTurn = { stageloop: 0, aiSdk: 0 };
  const modes = {
    stageloop: async () => {
      const value = await cpuPerTurn(runsPerSample, turnsPerRun, () =>
        stageloopRun(instrumentDeps(plainDeps(turnsPerRun), { tracer })),
      );
      spansPerTurn.stageloop = (await flushed()).length / (runsPerSample * turnsPerRun);
      return value;
    },
    aiSdk: async () => {
      const value = await cpuPerTurn(runsPerSample, turnsPerRun, aiSdkRun);
      spansPerTurn.aiSdk = (await flushed()).length / (runsPerSample * turnsPerRun);
      return value;
    },
  };
  const measured = { stageloop: [] as number[], aiSdk: [] as number[], ratio: [] as number[] };
  await withAsyncContext(async () => {
    // Interleaved rounds (the first is warm-up), so JIT and machine noise fall on both alike.
    for (let round = 0; round <= samples; round++) {
      const ours = await modes.stageloop();
      const theirs = await modes.aiSdk();
      if (round === 0) continue;
      measured.stageloop.push(ours);
      measured.aiSdk.push(theirs);
      measured.ratio.push(ours / theirs);
    }
  });
  await provider.shutdown();
  const ratio = median(measured.ratio);
  console.log(
    `Traced ReAct turn, ${turnsPerRun} turns a run, ${runsPerSample} runs a sample, median of ${samples} interleaved samples (CPU µs a turn):`,
  );
  console.log(
    `  stageloop (reactPipeline, instrumentDeps)      ${format(median(measured.stageloop), 2).padStart(8)} µs  (${format(spansPerTurn.stageloop, 1)} spans a turn)`,
  );
  console.log(
    `  AI SDK generateText, experimental_telemetry   ${format(median(measured.aiSdk), 2).padStart(8)} µs  (${format(spansPerTurn.aiSdk, 1)} spans a turn)`,
  );
  console.log(
    `  ratio (median of the per-round ratios): ${format(ratio, 2)}x; goal <= ${goal}x: ${ratio <= goal ? 'met' : 'not met'}`,
  );
}
