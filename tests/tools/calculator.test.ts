// The calculator tool in normal use: output format, units, functions, math errors, and the worker's lifecycle.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CalculatorWorkerHost } from '../../src/tools/calculator-host.js';
import { calculatorLimits, calculatorTool } from '../../src/tools/calculator.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { until } from '../support/helpers.js';
import type { ToolResult } from '../../src/engine/tool-port.js';

const calculator = calculatorTool();
const tools = new ToolRegistry([calculator]);
const calculate = (expression: string, signal?: AbortSignal) =>
  tools.execute({ id: 'c1', name: 'calculator', arguments: JSON.stringify({ expression }) }, signal);

afterAll(() => calculator.close());

function contentOf(result: ToolResult): string {
  if (!result.ok) throw new Error(`expected ok, got ${result.error.kind}: ${result.error.message}`);
  return result.content;
}

describe('calculator', () => {
  it('declares { expression } for the model', () => {
    expect(calculator.definition.name).toBe('calculator');
    expect(calculator.definition.parameters).toMatchObject({ required: ['expression'], additionalProperties: false });
    expect(calculator.definition.strict).toBe(true);
  });

  it('answers arithmetic in the Expression/Result format (first call loads mathjs)', async () => {
    expect(contentOf(await calculate('17 * 23 + 4'))).toBe('Expression: 17 * 23 + 4\nResult: 395');
  });

  it.each([
    ['sqrt(16)', '4'],
    ['2 inch to cm', '5.08 cm'],
    ['0.1 + 0.2', '0.3'],
    ['det([1, 2; 3, 4])', '-2'],
    ['a = 2; a * 3', '6'],
    ['100 degF to degC', '37.777777777778 degC'],
    ['1000000 * 3', '3000000'],
    ['sqrt(-4)', '2i'],
  ])('%s = %s', async (expression, expected) => {
    expect(contentOf(await calculate(expression))).toBe(`Expression: ${expression}\nResult: ${expected}`);
  });

  it('summarises a matrix too large to show', async () => {
    expect(contentOf(await calculate('ones(200, 200)'))).toMatch(/Result: a matrix of size 200 x 200 \(40000 entries/);
  });

  it.each([
    ['1 +', /Unexpected end of expression/],
    ['x + 1', /Undefined symbol x/],
    ['f(x) = f(x); f(1)', /call stack/],
  ])('reports the math error of %j as failed', async (expression, message) => {
    const result = await calculate(expression);
    expect(result).toMatchObject({ ok: false, error: { kind: 'failed' } });
    expect(result.ok ? '' : result.error.message).toMatch(message);
  });

  it('refuses an expression tree above the node cap', async () => {
    const result = await calculate(`1${' + 1'.repeat(200)}`);
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'failed', message: expect.stringMatching(/401 parts; the limit is 300/) },
    });
  });

  it('keeps separate evaluations apart (no variables leak between calls)', async () => {
    await calculate('leaked = 5');
    expect(await calculate('leaked + 1')).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/Undefined symbol leaked/) },
    });
  });

  it('answers parallel calls in order', async () => {
    const results = await tools.executeAll(
      ['1 + 1', '2 * 3', '10 / 4'].map((expression, index) => ({
        id: `p${index}`,
        name: 'calculator',
        arguments: JSON.stringify({ expression }),
      })),
    );
    expect(results.map((result) => contentOf(result).split('\n')[1])).toEqual([
      'Result: 2',
      'Result: 6',
      'Result: 2.5',
    ]);
  });
});

describe('calculator worker lifecycle', () => {
  it('close() fails a running calculation at once, and the next call starts a new worker', async () => {
    const host = new CalculatorWorkerHost(calculatorLimits());
    const own = calculatorTool({}, host);
    const ownTools = new ToolRegistry([own]);
    await own.warm();
    const running = ownTools.execute({
      id: 'r',
      name: 'calculator',
      arguments: JSON.stringify({ expression: 'sum(map(ones(2000, 2000), f(x) = x + 1))' }),
    });
    await until(() => host.evaluating, 'the worker is calculating');
    await own.close();
    expect(await running).toMatchObject({
      ok: false,
      error: { kind: 'failed', message: expect.stringContaining('closed') },
    });
    expect(await ownTools.execute({ id: 'n', name: 'calculator', arguments: '{"expression":"2 + 2"}' })).toMatchObject({
      ok: true,
      content: 'Expression: 2 + 2\nResult: 4',
    });
    await own.close();
  }, 40_000); // two mathjs loads, slow on a busy machine

  it('lets a script exit on its own after a top-level calculation', async () => {
    const fixture = fileURLToPath(new URL('../support/calculator-once.ts', import.meta.url));
    const started = Date.now();
    const output = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', fixture], { timeout: 25_000 }, (error, stdout) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout });
      });
      child.stdin?.end();
    });
    expect(output.code).toBe(0);
    expect(JSON.parse(output.stdout)).toMatchObject({ ok: true, content: 'Expression: 17 * 23 + 4\nResult: 395' });
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 30_000);
});
