// Fixture for calculator tests: one calculation at top level, then the process must exit on its own (the worker is unref'd).
import { calculatorTool } from '../../src/tools/calculator.js';
import { ToolRegistry } from '../../src/tools/registry.js';

const tools = new ToolRegistry([calculatorTool()]);
const result = await tools.execute({
  id: 'once',
  name: 'calculator',
  arguments: JSON.stringify({ expression: '17 * 23 + 4' }),
});
console.log(JSON.stringify(result));
