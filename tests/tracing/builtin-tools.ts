// Real tools for the built-in pipeline trace tests: a calculator over + - * / and parentheses (no eval of
// anything else), in a real ToolRegistry.
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';

function evaluate(expression: string): number {
  if (!/^[\d\s+\-*/().]+$/.test(expression)) throw new Error(`not an arithmetic expression: ${expression}`);
  const value: unknown = Function(`"use strict"; return (${expression});`)();
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`no finite result for ${expression}`);
  return value;
}

export const calculator = defineTool({
  name: 'calculator',
  description: 'Evaluates an arithmetic expression such as "2 * (3 + 4)" and returns the number.',
  parameters: z.object({ expression: z.string().min(1) }),
  execute: ({ expression }) => String(evaluate(expression)),
});

export function calculatorRegistry(): ToolRegistry {
  return new ToolRegistry([calculator]);
}
