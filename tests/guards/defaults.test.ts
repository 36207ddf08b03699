// The default guards (docs/guards.md "Defaults"), each stopping a run that would otherwise go on, against a real
// Chat Completions server on 127.0.0.1; and the limits in force in --help, --json and on the root span.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import type { Pipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { makeClock } from '../../src/testing/index.js';
import { otelRunTracer } from '../../src/tracing/otel-tracer.js';
import { applyGuards, guardDefaults } from '../../pipelines/guards.js';
import { sendReply } from '../support/chat-server.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli } from '../support/run-cli.js';
import { testTools } from '../support/stage-tools.js';
import { enableAsyncContext, findSpan, makeTracing } from '../tracing/span-tree.js';

const loopback = useLoopbackServer({ timeoutMs: 10_000 });
const calc = (expression: string, id: string) => ({
  name: 'calculator',
  arguments: JSON.stringify({ expression }),
  id,
});

async function run(pipeline: Pipeline, deps: { clock?: ReturnType<typeof makeClock> } = {}) {
  const events: RunEvent[] = [];
  const result = await runPipeline(
    pipeline,
    { task: 'What is 17 * 23 + 4?' },
    {
      deps: { model: loopback.model(), tools: testTools(), onEvent: (event) => events.push(event), ...deps },
    },
  );
  return { result, events, bodies: loopback.server.requests.map((request) => request.body) };
}

describe('each default stops a run that would otherwise go on', () => {
  it('observe-plan-act "Context & Token Budget": the default token budget (80% of 128,000 for an unknown model) stops with budget_tokens after the graceful final turn', async () => {
    const usage = { input: 40_000, output: 1_000 };
    for (let turn = 1; turn <= 3; turn++)
      loopback.server.replyWithToolCalls([calc(`${turn} + 1`, `call_${turn}`)], { usage });
    loopback.server.replyWith({ content: 'Partial: I only added small numbers.', usage });
    const { result, bodies, events } = await run(reactPipeline());
    loopback.server.assertConsumed();
    expect(result.state.limits?.maxTokens).toBe(102_400);
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: { kind: 'budget_tokens', stage: 'think' },
      partial: true,
      answer: 'Partial: I only added small numbers.',
    });
    expect(bodies.at(-1)!.tools).toBeUndefined();
    expect(events.map((event) => event.type)).toContain('budget_exhausted');
  });

  it('observe-plan-act "Repeated Tool Failure": the default repeated-call guard refuses the 3rd identical failing call and stops with loop_detected when asked again', async () => {
    const failing = { name: 'calculator', arguments: '{"expresion":"17 * 23 + 4"}' };
    for (let turn = 1; turn <= 4; turn++) loopback.server.replyWithToolCalls([{ ...failing, id: `call_${turn}` }]);
    loopback.server.replyWith({ content: 'Partial: the calculator kept rejecting my call.' });
    const { result, bodies } = await run(reactPipeline());
    loopback.server.assertConsumed();
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'loop_detected', stage: 'loop-guard' } });
    // Before evaluate's stop after four failing turns.
    expect(result.state.evaluate?.failures).toBe(3);
    expect(bodies[3]!.messages.at(-1)!.content).toMatch(/repeated, identical call to calculator/);
  });

  it('observe-plan-act checklist "Execution Timeout": the CLI default of 10 minutes stops with budget_time', async () => {
    const clock = makeClock();
    for (let turn = 1; turn <= 10; turn++) {
      loopback.server.handle((request, response) => {
        clock.advance(4 * 60_000);
        sendReply(request, response, { toolCalls: [calc(`${turn} + 1`, `c${turn}`)] });
      });
    }
    const pipeline = applyGuards(
      reactPipeline({ guards: false }),
      {},
      { defaults: true, defaultTimeoutSeconds: guardDefaults.cliTimeoutSeconds },
    );
    const { result } = await run(pipeline, { clock });
    expect(result.state.limits?.timeoutSeconds).toBe(600);
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'budget_time' } });
    expect(result.iterations).toBe(4);
  });

  it('the same runs go on without the defaults: --no-guards leaves only the iteration cap', async () => {
    const failing = { name: 'calculator', arguments: '{"expresion":"17 * 23 + 4"}' };
    for (let turn = 1; turn <= 4; turn++) loopback.server.replyWithToolCalls([{ ...failing, id: `call_${turn}` }]);
    loopback.server.replyWith({ content: 'Partial.' });
    const { result } = await run(reactPipeline({ guards: { noGuards: true } }));
    loopback.server.assertConsumed();
    expect(result).toMatchObject({ status: 'stopped', stopReason: { kind: 'evaluate_stop' } });
  });
});

describe('the limits in force are visible', () => {
  let disableContext: () => void;
  beforeAll(() => void (disableContext = enableAsyncContext()));
  afterAll(() => disableContext());

  it('on the root span as stageloop.limit.* attributes (-1 for a limit that is off)', async () => {
    loopback.server.replyWith({ content: '395' });
    const tracing = makeTracing();
    const result = await runPipeline(
      reactPipeline({ guards: { timeoutSeconds: 0 } }),
      { task: 'What is 17 * 23 + 4?' },
      {
        deps: { model: loopback.model(), tools: testTools(), tracer: otelRunTracer({ tracer: tracing.tracer }) },
      },
    );
    expect(result.status).toBe('completed');
    const root = findSpan(tracing.spans(), 'invoke_agent react');
    expect(root.attributes).toMatchObject({
      'stageloop.limit.max_iterations': 10,
      'stageloop.limit.max_tokens': 102_400,
      'stageloop.limit.timeout_seconds': -1,
      'stageloop.limit.loop_limit': 3,
      'stageloop.limit.context_budget': 102_400,
    });
  });

  it('in stageloop run --json, and in --help', async () => {
    const json = await runCli(['run', '--json', '--no-store', 'What is 17 * 23 + 4?']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).limits).toEqual({
      maxIterations: 10,
      maxTokens: 102_400,
      maxCostUsd: null,
      timeoutSeconds: 600,
      loopLimit: 3,
      contextBudget: 102_400,
    });
    const off = await runCli([
      'run',
      '--json',
      '--no-store',
      '--max-tokens',
      '0',
      '--timeout',
      '0',
      '--loop-limit',
      '0',
      'What is 2 + 2?',
    ]);
    expect(JSON.parse(off.stdout).limits).toMatchObject({
      maxTokens: null,
      timeoutSeconds: null,
      loopLimit: null,
      contextBudget: 102_400,
    });
    const none = await runCli(['run', '--json', '--no-store', '--no-guards', 'What is 2 + 2?']);
    expect(JSON.parse(none.stdout).limits).toEqual({
      maxIterations: 10,
      maxTokens: null,
      maxCostUsd: null,
      timeoutSeconds: null,
      loopLimit: null,
      contextBudget: null,
    });
    const help = await runCli(['run', '--help']);
    expect(help.stdout).toMatch(
      /--max-tokens N [^]*80% of the model's context\s+window, 102400 for a model stageloop does not know\); 0 for none/,
    );
    expect(help.stdout).toMatch(/--timeout SECONDS .*\(default 600\); 0 for none/);
    expect(help.stdout).toMatch(/--loop-limit N .*identical failing/);
    expect(help.stdout).toMatch(/--no-guards/);
  });
});
