// A typed final output: ReAct and Plan-Execute-Replan with an outputSchema, over the loopback server and a scripted model.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { planExecuteReplanPipeline, reactPipeline } from '../../../pipelines/index.js';
import { runPipeline } from '../../../src/engine/runner.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import type { ChatModel } from '../../../src/model/types.js';
import { outputOf } from '../../../stages/loop/final-output.js';
import { useLoopbackServer } from '../../support/loopback-model.js';
import { testTools } from '../../support/stage-tools.js';

const loopback = useLoopbackServer({ timeoutMs: 5_000 });
const city = z.strictObject({ city: z.string(), population: z.number().int().positive() });
const task = 'Which city is the capital of France, and how many people live there?';

async function run(model: ChatModel = loopback.model()) {
  return runPipeline(reactPipeline({ outputSchema: city }), { task }, { deps: { model, tools: testTools() } });
}

describe('outputSchema on ReAct', () => {
  it('the final answer comes back typed as output, the text answer stays in answer', async () => {
    loopback.server
      .replyWith({ content: 'Paris, with about 2.1 million people.' })
      .replyWith({ content: '{"city":"Paris","population":2100000}' });
    const result = await run();
    loopback.server.assertConsumed();
    expect(result).toMatchObject({
      status: 'completed',
      answer: 'Paris, with about 2.1 million people.',
      stopReason: { kind: 'completed', stage: 'think' },
    });
    const output = outputOf(result, city);
    expectTypeOf(output).toEqualTypeOf<{ city: string; population: number } | undefined>();
    expect(output).toEqual({ city: 'Paris', population: 2_100_000 });
    const body = loopback.server.lastBody!;
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'final_output', schema: { required: ['city', 'population'] } },
    });
    expect(body.tools).toBeUndefined();
    expect(body.messages[1]!.content).toContain('Final answer given:\nParis, with about 2.1 million people.');
  });

  it('an invalid first attempt is repaired with the validation error shown to the model', async () => {
    loopback.server
      .replyWith({ content: 'Paris, 2.1 million.' })
      .replyWith({ content: '{"city":"Paris"}' })
      .replyWith({ content: '{"city":"Paris","population":2100000}' });
    const result = await run();
    expect(result.status).toBe('completed');
    expect(outputOf(result, city)).toEqual({ city: 'Paris', population: 2_100_000 });
    expect(loopback.server.lastBody!.messages.at(-1)!.content).toMatch(/could not be used: .*population/s);
  });

  it('an answer that cannot be made valid stops the run with invalid_output and the last error', async () => {
    loopback.server
      .replyWith({ content: 'Paris.' })
      .replyWith({ content: '{"city":"Paris"}' })
      .replyWith({ content: '{"city":"Paris","population":"many"}' });
    const result = await run();
    expect(result).toMatchObject({
      status: 'stopped',
      stopReason: {
        kind: 'invalid_output',
        message: expect.stringMatching(/does not match the output schema: .*population/s),
      },
    });
    expect(result.state.finalOutput).toMatchObject({ ok: false });
    expect(outputOf(result, city)).toBeUndefined();
  });

  it('a model that does not validate itself (scripted) is repaired by the stage, once', async () => {
    const model = new ScriptedModel([
      { content: 'Paris.' },
      { content: 'Paris has 2.1 million people' },
      { content: '```json\n{"city":"Paris","population":2100000}\n```' },
      { content: 'summary unused' },
    ]);
    const result = await run(model);
    expect(result.state.finalOutput).toEqual({
      ok: true,
      value: { city: 'Paris', population: 2_100_000 },
      attempts: 2,
    });
    expect(model.requests[2]!.messages.at(-1)!.content).toMatch(
      /^Your previous reply could not be used: the reply is not JSON/,
    );
    const impossible = new ScriptedModel([
      { content: 'Paris.' },
      { content: 'no' },
      { content: 'still no' },
      { content: 'summary' },
    ]);
    expect((await run(impossible)).stopReason.kind).toBe('invalid_output');
  });
});

describe('outputSchema on Plan-Execute-Replan', () => {
  it('the output is produced from the plan results once every step is done', async () => {
    const total = z.strictObject({ value: z.number() });
    loopback.server
      .replyWith({ content: JSON.stringify({ steps: [{ description: 'Compute 12*12', status: 'pending' }] }) })
      .replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"12*12"}' }])
      .replyWith({ content: '144' })
      .replyWith({ content: '{"need_replan":false,"reason":"done","new_steps":[]}' })
      .replyWith({ content: '{"value":144}' })
      .replyWith({ content: 'The answer is 144.' });
    const result = await runPipeline(
      planExecuteReplanPipeline({ outputSchema: total }),
      { task: 'Compute 12*12' },
      { deps: { model: loopback.model(), tools: testTools() } },
    );
    loopback.server.assertConsumed();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 144.' });
    expect(outputOf(result, total)).toEqual({ value: 144 });
    expect(loopback.server.requests[4]!.body.messages[1]!.content).toMatch(
      /Results of the plan steps:\nStep 1 \(completed\): Compute 12\*12\nResult: 144/,
    );
  });
});
