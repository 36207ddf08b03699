// run_finished carries the outcome in full (answer, typed output, usage), so a reader of the events alone needs no
// second request: through streamRun in code and through `stageloop run --events`.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/index.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { streamRun } from '../../src/stream/stream-run.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli } from '../support/run-cli.js';
import { testTools } from '../support/stage-tools.js';

const loopback = useLoopbackServer({ timeoutMs: 10_000 });
const usage = { input: 120, output: 30 };

describe('run_finished', () => {
  it('has the whole answer, the typed output and the usage total of every call', async () => {
    loopback.server.replyWith({ content: 'The answer is 42.', usage });
    loopback.server.replyWith({ content: '{"result": 42}', usage });
    const stream = streamRun(
      reactPipeline({ outputSchema: z.object({ result: z.number() }) }),
      { task: 'What is 6 * 7?' },
      { deps: { model: loopback.model(), tools: testTools() } },
    );
    const events: RunEvent[] = [];
    for await (const event of stream) events.push(event);
    const finished = events.at(-1)!;
    expect(finished.type).toBe('run_finished');
    const result = await stream.result;
    expect(finished.data).toEqual({
      status: 'completed',
      stopReason: result.stopReason,
      answer: 'The answer is 42.',
      partial: false,
      output: { result: 42 },
      usage: result.usage,
      iterations: 1,
    });
    expect(result.output).toEqual({ result: 42 });
    expect(result.usage.inputTokens).toBe(240);
  });

  it('is the last line of --events, with the answer longer than the progress events clip and the usage', async () => {
    const answer = `The answer is 395. ${'Here is why, at length. '.repeat(20)}`.trim();
    loopback.server.replyWith({ content: answer, usage });
    const run = await runCli([
      'run',
      '--events',
      '--no-store',
      '--base-url',
      loopback.server.url,
      '--model',
      'test-model',
      'What is 17 * 23 + 4?',
    ]);
    expect(run.code).toBe(0);
    const last = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      type: string;
      data: { answer: string; usage: { inputTokens: number }; output?: unknown };
    };
    expect(last.type).toBe('run_finished');
    expect(last.data.answer).toBe(answer);
    expect(last.data.usage.inputTokens).toBe(120);
    expect(last.data).not.toHaveProperty('output');
  });
});
