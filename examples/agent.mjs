// agent.mjs
import { z } from 'zod';
import {
  calculatorTool,
  defineTool,
  isRealModelConfigured,
  modelConfigFromEnv,
  OfflineModel,
  OpenAIChatModel,
  runPipeline,
  ToolRegistry,
} from 'stageloop';
import { reactPipeline } from 'stageloop/pipelines';

const weather = defineTool({
  name: 'weather',
  description: 'Current weather in a city. Returns temperature and sky.',
  parameters: z.strictObject({ city: z.string() }),
  async execute({ city }) {
    return `${city}: 21 °C, sunny`;
  },
});

// A real model when one is configured (OPENAI_API_KEY, or OPENAI_BASE_URL and OPENAI_MODEL), else the built-in
// offline model, which only does arithmetic.
function chooseModel() {
  if (!isRealModelConfigured(process.env)) return new OfflineModel();
  try {
    return new OpenAIChatModel(modelConfigFromEnv(process.env));
  } catch (error) {
    // A broken setting: one line naming what to fix, not a stack trace.
    console.error(`agent.mjs: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }
}

const model = chooseModel();
const tools = new ToolRegistry([weather, calculatorTool()]);
const task = process.argv[2] ?? 'What is 17 * 23 + 4?';
const result = await runPipeline(
  reactPipeline(),
  { task },
  { deps: { model, tools }, signal: AbortSignal.timeout(60_000) },
);
console.log(result.status, result.answer);
