// Hostile calculator input: each ends as an error result within a few seconds, and this process carries on.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CalculatorWorkerHost } from '../../src/tools/calculator-host.js';
import { calculatorLimits, calculatorTool } from '../../src/tools/calculator.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { PROMPTLY_MS, until } from '../support/helpers.js';

const host = new CalculatorWorkerHost(calculatorLimits({ evaluationTimeoutMs: 1_500 }));
const calculator = calculatorTool({}, host);
const tools = new ToolRegistry([calculator]);
const calculate = (expression: string, signal?: AbortSignal) =>
  tools.execute({ id: 'h1', name: 'calculator', arguments: JSON.stringify({ expression }) }, signal);

// The evaluation itself: kill timer (1.5 s) plus killing the worker and messaging, with room for a loaded machine
// (a busy 2-core runner adds seconds); a sandbox that never kills runs until the test's own 20 s timeout.
const FEW_SECONDS = 8_000;

beforeAll(async () => {
  expect(await calculate('1 + 1')).toMatchObject({ ok: true });
}, 20_000);
// A killed worker is replaced at once, but loading mathjs again takes a second or two: not part of what is timed.
beforeEach(() => calculator.warm(), 20_000);
afterAll(() => calculator.close());

describe('hostile calculator input', () => {
  it.each([
    ['a 10^10-entry matrix', 'zeros(100000, 100000)', ['timeout', 'failed']],
    ['a 3e7 range mapped through a function', 'sum(map(range(1, 3e7), f(x) = x))', ['timeout', 'failed']],
    ['import', 'import({ pi: 3 }, { override: true })', ['failed']],
    ['createUnit', 'createUnit("smoot", "67 inch")', ['failed']],
    ['createUnit through a variable', 'f = createUnit; f("smoot", "67 inch")', ['failed']],
    ['createUnit on the Unit class', 'Unit.createUnit({ smoot: "67 inch" })', ['failed']],
    ['evaluate', 'evaluate("1 + 1")', ['failed']],
    ['parse', 'parse("1 + 1")', ['failed']],
    ['simplify', 'simplify("x + x")', ['failed']],
    ['derivative', 'derivative("x^2", "x")', ['failed']],
    ['reviver', 'reviver("a", 1)', ['failed']],
    ['config', 'config({ number: "BigNumber" })', ['failed']],
    ['a constructor escape', 'cos.constructor("return process")()', ['failed']],
    ['a long-running loop', 'sum(map(ones(3000, 3000), f(x) = x + 1))', ['timeout', 'failed']],
  ])(
    '%s ends as an error',
    async (_label, expression, kinds) => {
      const started = Date.now();
      const result = await calculate(expression);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(kinds).toContain(result.error.kind);
      expect(Date.now() - started).toBeLessThan(FEW_SECONDS);
    },
    20_000,
  );

  it('refuses very long input before evaluating it', async () => {
    // invalid_arguments names the length rule: the worker never saw the expression (an evaluated one would be its result or a timeout).
    const result = await calculate(`1${'+1'.repeat(100_000)}`);
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'invalid_arguments', message: expect.stringMatching(/1000 characters/) },
    });
  });

  it('a disabled function stays disabled and config stays unchanged afterwards', async () => {
    await calculate('config({ number: "BigNumber" })');
    expect(await calculate('0.1 + 0.2')).toMatchObject({ ok: true, content: 'Expression: 0.1 + 0.2\nResult: 0.3' });
  }, 20_000);

  it('no unit was created by the attempts above', async () => {
    await calculate('createUnit("smoot", "67 inch")');
    expect(await calculate('1 smoot to cm')).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/smoot/) },
    });
  }, 20_000);

  it('stops a running calculation when the run signal aborts, long before its own time limit', async () => {
    // A host of its own with a minute's limit: ending within seconds can only be the abort, however busy the machine.
    const patientHost = new CalculatorWorkerHost(calculatorLimits({ evaluationTimeoutMs: 60_000 }));
    const patient = calculatorTool({}, patientHost);
    try {
      await patient.warm();
      const controller = new AbortController();
      const call = {
        id: 'h2',
        name: 'calculator',
        arguments: JSON.stringify({ expression: 'sum(map(ones(3000, 3000), f(x) = x + 1))' }),
      };
      const calculating = new ToolRegistry([patient]).execute(call, controller.signal);
      await until(() => patientHost.evaluating, 'the worker is calculating');
      const aborted = Date.now();
      controller.abort();
      const result = await calculating;
      expect(result).toMatchObject({ ok: false, error: { kind: 'aborted' } });
      expect(Date.now() - aborted).toBeLessThan(PROMPTLY_MS);
    } finally {
      await patient.close();
    }
  }, 20_000);

  it('still calculates after all of the above: the process and the tool live on', async () => {
    expect(await calculate('sqrt(16)')).toMatchObject({ ok: true, content: 'Expression: sqrt(16)\nResult: 4' });
  }, 20_000);
});
