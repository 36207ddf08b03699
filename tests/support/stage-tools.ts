// Small real tools for stage and pipeline tests: a registry of zod-validated tools, no mathjs.
import { z } from 'zod';
import { defineTool, type Tool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { ToolFailure } from '../../src/tools/tool-failure.js';

/** Evaluates + - * / ^ and parentheses over numbers; anything else is rejected before evaluation. */
export function evaluateArithmetic(expression: string): number {
  if (!/^[\d\s+\-*/().^]+$/.test(expression)) throw new Error(`not an arithmetic expression: ${expression}`);
  const value: unknown = Function(`"use strict"; return (${expression.replace(/\^/g, '**')});`)();
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`no finite result for ${expression}`);
  return value;
}

export const testCalculator = defineTool({
  name: 'calculator',
  description: 'Evaluates an arithmetic expression such as "2 * (3 + 4)" and returns the number.',
  parameters: z.object({ expression: z.string().min(1) }),
  execute: ({ expression }) => String(evaluateArithmetic(expression)),
});

export const lookupTool = defineTool({
  name: 'lookup',
  description: 'Looks a key up in a small table; returns nothing for unknown keys.',
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => ({ pi: '3.14159', answer: '42' })[key] ?? '',
});

/** A tool that fails with a transient error `failures` times, then answers "ok". Stateful: make one per test. */
export function flakyTool(failures: number) {
  let calls = 0;
  return defineTool({
    name: 'flaky',
    description: 'Sometimes times out.',
    parameters: z.object({}),
    execute: () => {
      calls++;
      if (calls <= failures) throw new ToolFailure('the upstream service timed out', { kind: 'timeout' });
      return 'ok';
    },
  });
}

export function testTools(...extra: Tool[]): ToolRegistry {
  return new ToolRegistry([testCalculator, lookupTool, ...extra]);
}
