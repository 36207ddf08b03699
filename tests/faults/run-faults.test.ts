// Fault matrix, tools and cancellation: every kind of throw, hangs, huge and odd output from a tool, and a cancel at
// each point of a run (stages and tracers are in run-faults-stages.test.ts); whole ReAct runs with the scripted model.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/index.js';
import type { Pipeline } from '../../src/engine/pipeline.js';
import type { RunOptions } from '../../src/engine/runner.js';
import type { Stage } from '../../src/engine/stage.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { ToolFailure } from '../../src/tools/tool-failure.js';
import { testCalculator } from '../support/stage-tools.js';
import { runCase, sleep, withStage, type Expected } from './harness.js';
import { answering, hostile, revoked } from './run-faults-fixtures.js';

const callThenAnswer = () =>
  new ScriptedModel([
    { toolCalls: [{ name: 'probe', arguments: '{}' }] },
    { content: 'The tool misbehaved; 395 anyway.' },
  ]);
const probe = (execute: (signal: AbortSignal) => unknown, timeoutMs?: number) =>
  new ToolRegistry([
    testCalculator,
    defineTool({
      name: 'probe',
      description: 'A tool under test.',
      parameters: z.object({}),
      execute: (_args, ctx) => execute(ctx.signal) as never,
      ...(timeoutMs ? { timeoutMs } : {}),
    }),
  ]);
const circular = () => {
  const value: Record<string, unknown> = { name: 'loop' };
  value.self = value;
  return value;
};

interface ToolRow {
  name: string;
  execute: (signal: AbortSignal) => unknown;
  timeoutMs?: number;
  /** What the model must have been shown about the call. */
  shown: RegExp;
}

const toolRows: ToolRow[] = [
  {
    name: 'throws an Error',
    execute: () => {
      throw new Error('disk full');
    },
    shown: /disk full/,
  },
  {
    name: 'throws a string',
    execute: () => {
      throw 'plain string';
    },
    shown: /plain string/,
  },
  {
    name: 'throws undefined',
    execute: () => {
      throw undefined;
    },
    shown: /Error \(failed\)/,
  },
  {
    name: 'throws null',
    execute: () => {
      throw null;
    },
    shown: /Error \(failed\)/,
  },
  {
    name: 'throws an object whose toString and toJSON throw',
    execute: () => {
      throw hostile();
    },
    shown: /Error \(failed\)/,
  },
  {
    name: 'throws a revoked Proxy',
    execute: () => {
      throw revoked();
    },
    shown: /Error \(failed\)/,
  },
  { name: 'rejects with a BigInt holder', execute: () => Promise.reject({ amount: 10n }), shown: /Error \(failed\)/ },
  {
    name: 'throws a ToolFailure timeout (retryable)',
    execute: () => {
      throw new ToolFailure('upstream slow', { kind: 'timeout' });
    },
    shown: /Error \(timeout\): .*upstream slow/,
  },
  {
    name: 'hangs past its timeout, honouring its signal',
    execute: (signal) =>
      new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))),
    timeoutMs: 150,
    shown: /Error \(timeout\)/,
  },
  {
    name: 'hangs past its timeout, ignoring its signal',
    execute: () => new Promise(() => {}),
    timeoutMs: 150,
    shown: /Error \(timeout\)/,
  },
  { name: 'returns 1 MB of text (cut at the cap)', execute: () => 'z'.repeat(1_000_000), shown: /output truncated/ },
  { name: 'returns undefined', execute: () => undefined, shown: /empty/i },
  {
    name: 'returns a circular object',
    execute: () => circular(),
    shown: /cannot be turned into text|Error \(failed\)/,
  },
  { name: 'returns a BigInt', execute: () => 10n, shown: /./ },
  { name: 'returns a Symbol', execute: () => Symbol('odd'), shown: /cannot be turned into text|Error \(failed\)/ },
  { name: 'returns a function', execute: () => () => 1, shown: /./ },
  { name: 'returns NaN', execute: () => Number.NaN, shown: /./ },
  { name: 'returns control characters and a NUL', execute: () => '\u001b]0;pwned\u0007\u001b[2J\u0000ok', shown: /ok/ },
];

describe('fault matrix: tools', () => {
  it.each(toolRows.map((row) => [row.name, row] as const))(
    'a tool that %s: the model sees it and the run completes',
    async (_name, row) => {
      const model = callThenAnswer();
      const result = await runCase(
        reactPipeline(),
        'What is 17 * 23 + 4?',
        { deps: { model, tools: probe(row.execute, row.timeoutMs) } },
        { status: 'completed', kind: 'completed', answer: /395/, boundMs: 3_000 },
      );
      const shown = result.state.messages.find((message) => message.role === 'tool');
      if (shown === undefined || !row.shown.test(shown.content))
        throw new Error(`the model was shown ${JSON.stringify(shown).slice(0, 300)}`);
      expect(model.requests[1]!.messages).toContainEqual(shown);
    },
  );
});

describe('fault matrix: cancellation', () => {
  const hangingModel = {
    provider: 'test',
    modelName: 'hang',
    chat: (_request: unknown, signal?: AbortSignal) =>
      new Promise<never>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
  };
  const cases: Array<[string, () => { pipeline: Pipeline; options: RunOptions }, Expected]> = [
    [
      'before the run starts',
      () => ({
        pipeline: reactPipeline(),
        options: { signal: AbortSignal.abort(new Error('not wanted')), deps: { model: new ScriptedModel([]) } },
      }),
      {
        status: 'cancelled',
        kind: 'cancelled',
        message: /not wanted/,
        answer: /^I could not finish this task/,
        boundMs: 500,
      },
    ],
    [
      'during a model call',
      () => ({
        pipeline: reactPipeline(),
        options: { signal: AbortSignal.timeout(100), deps: { model: hangingModel } },
      }),
      { status: 'cancelled', kind: 'cancelled', stage: 'think', answer: /^I could not finish this task/, boundMs: 400 },
    ],
    [
      'during a tool call',
      () => ({
        pipeline: reactPipeline(),
        options: {
          signal: AbortSignal.timeout(150),
          deps: {
            model: callThenAnswer(),
            tools: probe(
              (signal) =>
                new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))),
            ),
          },
        },
      }),
      { status: 'cancelled', kind: 'cancelled', stage: 'act', boundMs: 500 },
    ],
    [
      'during a tool that ignores its signal',
      () => ({
        pipeline: reactPipeline(),
        options: {
          signal: AbortSignal.timeout(150),
          deps: { model: callThenAnswer(), tools: probe(() => new Promise(() => {})) },
        },
      }),
      { status: 'cancelled', kind: 'cancelled', stage: 'act', boundMs: 1_200 },
    ],
    [
      'during finalize: finalize keeps its own limit, the status is kept',
      () => {
        const controller = new AbortController();
        const late: Stage = {
          name: 'late',
          execute: async () => {
            controller.abort();
            await sleep(50);
          },
        };
        return {
          pipeline: withStage(reactPipeline(), 'finalize', late),
          options: { signal: controller.signal, deps: { model: answering() } },
        };
      },
      { status: 'completed', kind: 'completed', answer: /^395$/, boundMs: 1_000 },
    ],
  ];
  it.each(cases)('%s', async (_name, arrange, expected) => {
    const { pipeline, options } = arrange();
    await runCase(pipeline, 'What is 17 * 23 + 4?', options, expected);
  });
});
