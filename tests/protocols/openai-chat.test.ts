// The `openai` SDK against a real `stageloop serve` on loopback: the agent answers as a Chat Completions model would.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { useLoopbackServer } from '../support/loopback-model.js';
import { jsonPost, loopbackModelEnv, useServes, waitForStatus, type TestServe } from '../server/serve-support.js';

const serves = useServes();
const loopback = useLoopbackServer();

const clientOf = (serve: TestServe, apiKey = 'unused') =>
  new OpenAI({ baseURL: `${serve.running.url}/v1`, apiKey, maxRetries: 0, timeout: 60_000 });

/** A streamed completion's content pieces and its reasoning text. */
async function readStreamed(
  stream: AsyncIterable<OpenAI.ChatCompletionChunk>,
): Promise<{ contents: string[]; reasoning: string }> {
  const contents: string[] = [];
  let reasoning = '';
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
    if (delta?.content) contents.push(delta.content);
    if (delta?.reasoning_content) reasoning += delta.reasoning_content;
  }
  return { contents, reasoning };
}

describe('POST /v1/chat/completions through the openai SDK', () => {
  it('lists the pipelines as models', async () => {
    const serve = await serves.start();
    const models = await clientOf(serve).models.list();
    expect(models.data.map((model) => model.id)).toEqual(expect.arrayContaining(['react', 'plan-execute-replan']));
  });

  it("answers a non-streaming request with the run's answer, finish_reason stop, usage and the run id in a header", async () => {
    const serve = await serves.start();
    const { data, response } = await clientOf(serve)
      .chat.completions.create({
        model: 'react',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'What is 17 * 23 + 4?' },
        ],
        temperature: 0.2,
        user: 'someone',
      })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0]!.message.content).toContain('395');
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage!.total_tokens).toBeGreaterThan(0);
    const runId = response.headers.get('x-stageloop-run-id')!;
    expect(data.id).toBe(`chatcmpl-${runId}`);
    // An ordinary recorded run: the server's store holds it.
    const view = (await (await serve.call(`/v1/runs/${runId}`)).json()) as {
      run: { status: string; pipeline: string };
    };
    expect(view.run).toMatchObject({ status: 'completed', pipeline: 'react' });
  });

  it('streams chunks in the Chat Completions shape, with usage in the last chunk when include_usage is set', async () => {
    const serve = await serves.start();
    const stream = await clientOf(serve).chat.completions.create({
      model: 'plan-execute-replan',
      messages: [{ role: 'user', content: 'What is 12 * 12?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? '')).join('');
    expect(text).toContain('144');
    const finishing = chunks.filter((chunk) => chunk.choices[0]?.finish_reason);
    expect(finishing.map((chunk) => chunk.choices[0]!.finish_reason)).toEqual(['stop']);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.total_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  });

  it("streams a streaming model's answer token by token, and the progress as reasoning when include_reasoning is set", async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: '{"expression":"6*7"}' }]);
    loopback.server.streamReply({ content: 'The answer is 42.', splitEvery: 4 });
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const body = {
      model: 'react',
      messages: [{ role: 'user' as const, content: 'six times seven?' }],
      stream: true as const,
      include_reasoning: true,
    };
    const stream = await clientOf(serve).chat.completions.create(body);
    const { contents, reasoning } = await readStreamed(stream);
    expect(contents.join('')).toBe('The answer is 42.');
    expect(contents.length).toBeGreaterThan(1);
    expect(reasoning).toContain('Calling calculator({"expression":"6*7"})');
    expect(reasoning).toMatch(/calculator returned .*42/);
  });

  it('maps a limit stop to finish_reason length', async () => {
    const serve = await serves.start();
    const completion = await clientOf(serve).chat.completions.create({
      model: 'react',
      messages: [{ role: 'user', content: 'What is 17 * 23 + 4?' }],
      max_completion_tokens: 5,
    });
    expect(completion.choices[0]!.finish_reason).toBe('length');
  });

  it('answers mistakes in the OpenAI error shape, which the SDK raises as its own errors', async () => {
    const serve = await serves.start();
    const client = clientOf(serve);
    const unknownModel = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(unknownModel).toBeInstanceOf(OpenAI.BadRequestError);
    expect((unknownModel as InstanceType<typeof OpenAI.BadRequestError>).message).toContain(
      'unknown pipeline "gpt-4o": choose one of react',
    );
    expect((unknownModel as InstanceType<typeof OpenAI.BadRequestError>).type).toBe('invalid_request_error');
    const noUser = await client.chat.completions
      .create({ model: 'react', messages: [{ role: 'system', content: 'only a system message' }] })
      .catch((error: unknown) => error);
    expect(noUser).toBeInstanceOf(OpenAI.BadRequestError);
    expect((noUser as Error).message).toContain('no user message');
    const noMessages = await client.chat.completions
      .create({ model: 'react', messages: [] })
      .catch((error: unknown) => error);
    expect((noMessages as Error).message).toContain('messages must not be empty');
  });

  it('a streaming client that hangs up cancels its run (the stop button), with bare data: blocks before it', async () => {
    // The model call hangs: the run is live when the client goes.
    loopback.server.hang();
    const serve = await serves.start(loopbackModelEnv(loopback.server.url));
    const response = await serve.call(
      '/v1/chat/completions',
      jsonPost({ model: 'react', messages: [{ role: 'user', content: 'slow one' }], stream: true }),
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const runId = response.headers.get('x-stageloop-run-id')!;
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^data: \{"id":"chatcmpl-/);
    await reader.cancel();
    const view = await waitForStatus(serve, runId, ['cancelled']);
    expect(view.run.status).toBe('cancelled');
  });
});

describe('first-day polish: preambles in the protocol streams', () => {
  it('a streamed Chat Completion carries only answer text; the preamble before a tool call is reasoning when asked for', async () => {
    const call = { name: 'calculator', arguments: JSON.stringify({ expression: '17 * 23 + 4' }), id: 'call_a' };
    for (const includeReasoning of [false, true]) {
      loopback.server.streamReply({ content: 'Let me calculate that first. ', toolCalls: [call] }, { delayMs: 1 });
      loopback.server.streamReply({ content: 'The answer is 395.', splitEvery: 4 });
      const serve = await serves.start(loopbackModelEnv(loopback.server.url));
      const stream = await clientOf(serve).chat.completions.create({
        model: 'react',
        messages: [{ role: 'user', content: 'What is 17 * 23 + 4?' }],
        stream: true,
        include_reasoning: includeReasoning,
      } as OpenAI.ChatCompletionCreateParamsStreaming);
      const { contents, reasoning } = await readStreamed(stream);
      expect(contents.join('')).toBe('The answer is 395.');
      expect(contents.length).toBeGreaterThan(1);
      if (includeReasoning) expect(reasoning).toContain('Let me calculate that first.');
      else expect(reasoning).toBe('');
    }
  });
});
