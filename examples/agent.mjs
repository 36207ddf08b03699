// agent.mjs
import { z } from 'zod';
import { calculatorTool, defineTool, modelConfigFromEnv, OpenAIChatModel, runPipeline, ToolRegistry } from 'stageloop';
import { reactPipeline } from 'stageloop/pipelines';

const weather = defineTool({
  name: 'weather',
  description: 'Current weather in a city. Returns temperature and sky.',
  parameters: z.strictObject({ city: z.string() }),
  async execute({ city }) {
    return `${city}: 21 °C, sunny`;
  },
});

let model;
try {
  model = new OpenAIChatModel(modelConfigFromEnv(process.env));
} catch (error) {
  // No model configured: one line naming what to set, not a stack trace.
  console.error(`agent.mjs: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
const tools = new ToolRegistry([weather, calculatorTool()]);
const result = await runPipeline(
  reactPipeline(),
  { task: 'Is it warmer than 20 °C in Lisbon?' },
  {
    deps: { model, tools },
    signal: AbortSignal.timeout(60_000),
  },
);
console.log(result.status, result.answer);
