// calculatorTool: the `calculator` tool, mathjs evaluated in a separate worker process with size, time and memory limits.
import { z } from 'zod';
import { CalculatorWorkerHost, defaultCalculatorLimits, type CalculatorHostOptions } from './calculator-host.js';
import { defineTool, type Tool } from './define-tool.js';
import { ToolFailure } from './tool-failure.js';

export interface CalculatorOptions {
  /** Longest expression accepted, in characters. Default 1,000. */
  maxExpressionLength?: number;
  /** Largest expression tree accepted, in nodes (`17 * 23 + 4` has 5). Default 300. */
  maxNodes?: number;
  /** Kill timer for one evaluation, mathjs loading excluded. Default 2,000 ms. */
  evaluationTimeoutMs?: number;
  /** Heap limit of the worker process. Default 128 MB. */
  memoryLimitMb?: number;
  /** Longest result text, in characters. Default 4,000. */
  maxResultChars?: number;
}

const calculatorParameters = (maxLength: number) =>
  z.strictObject({
    expression: z
      .string()
      .min(1)
      .max(maxLength)
      .describe('A mathjs expression, e.g. "17 * 23 + 4", "sqrt(16)", "2 inch to cm", "det([1, 2; 3, 4])"'),
  });

export type CalculatorTool = Tool<ReturnType<typeof calculatorParameters>> & {
  /** Starts the worker and loads mathjs now (about a second), e.g. at application start. */
  warm(): Promise<void>;
  /** Stops the worker process and resolves once it is gone (an idle one never keeps this process alive, so this is optional). */
  close(): Promise<void>;
};

/** The limits of a calculator with these options: the defaults where an option is not given. */
export function calculatorLimits(options: CalculatorOptions = {}): CalculatorHostOptions {
  return {
    evaluationTimeoutMs: options.evaluationTimeoutMs ?? defaultCalculatorLimits.evaluationTimeoutMs,
    memoryLimitMb: options.memoryLimitMb ?? defaultCalculatorLimits.memoryLimitMb,
    maxNodes: options.maxNodes ?? defaultCalculatorLimits.maxNodes,
    maxResultChars: options.maxResultChars ?? defaultCalculatorLimits.maxResultChars,
  };
}

/**
 * The calculator tool. `host` is the worker process it evaluates in: by default a new one with the limits of
 * `options`; the CLI passes one it started (with the same limits) before loading the rest of the engine.
 */
export function calculatorTool(
  options: CalculatorOptions = {},
  host = new CalculatorWorkerHost(calculatorLimits(options)),
): CalculatorTool {
  const maxExpressionLength = options.maxExpressionLength ?? 1_000;
  const tool = defineTool({
    name: 'calculator',
    effects: 'none',
    description:
      'Evaluate a math expression exactly instead of calculating in your head. Supports arithmetic, functions ' +
      '(sqrt, log, sin...), matrices, statistics and unit conversion ("2 inch to cm"). Returns the expression and its result.',
    parameters: calculatorParameters(maxExpressionLength),
    async execute(args, ctx) {
      const expression = args.expression.trim();
      // The schema already caps the length; this guards direct calls that skip the executor.
      if (expression.length === 0 || expression.length > maxExpressionLength) {
        throw new ToolFailure(`The expression must be 1 to ${maxExpressionLength} characters long.`);
      }
      const result = await host.evaluate(expression, ctx.signal);
      return `Expression: ${expression}\nResult: ${result}`;
    },
  });
  return Object.freeze({ ...tool, warm: () => host.warm(), close: () => host.close() });
}
