// think and summarize stream their calls when observed: the pieces, their purpose, and whether they may be the answer.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/index.js';
import { streamRun } from '../../src/stream/stream-run.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';

const loopback = useLoopbackServer();

describe('streamed stage calls in plan-execute-replan', () => {
  it('a step reply streams with mayAnswer false, the summary with mayAnswer true; plan calls are not streamed', async () => {
    loopback.server.replyWith({
      content: JSON.stringify({ steps: [{ description: 'Compute 12*12', status: 'pending' }] }),
    });
    loopback.server.replyWith({ content: 'It is 144.' });
    loopback.server.replyWith({ content: JSON.stringify({ need_replan: false, reason: 'done', new_steps: [] }) });
    loopback.server.replyWith({ content: 'The answer is 144.' });
    const stream = streamRun(
      planExecuteReplanPipeline(),
      { task: 'Compute 12*12' },
      { deps: { model: loopback.model(), tools: testTools() } },
    );
    const answer: string[] = [];
    for await (const text of stream.textStream) answer.push(text);
    const result = await stream.result;
    loopback.server.assertConsumed();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 144.' });
    expect(answer.join('')).toBe('The answer is 144.');
    const deltas = stream.events.filter((event) => event.type === 'text_delta');
    const byCall = (purpose: string) => deltas.filter((event) => event.data.purpose === purpose);
    expect(
      byCall('think')
        .map((event) => event.data.text)
        .join(''),
    ).toBe('It is 144.');
    expect(byCall('think').every((event) => !event.data.mayAnswer && event.stage === 'think')).toBe(true);
    expect(
      byCall('summarize').every(
        (event) => event.data.mayAnswer && event.stage === 'summarize' && event.zone === 'finalize',
      ),
    ).toBe(true);
    expect(loopback.server.requests.map((request) => request.body.stream === true)).toEqual([false, true, false, true]);
  });
});
