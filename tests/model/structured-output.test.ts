// Structured output: response_format json_schema, the JSON-in-content fallback, and the one repair attempt.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { OpenAIChatModelOptions } from '../../src/model/openai-model.js';
import { stripCodeFences } from '../../src/model/structured-output.js';
import { ModelError, type ChatRequest } from '../../src/model/types.js';
import { useLoopbackServer } from '../support/loopback-model.js';

const Plan = z.strictObject({ steps: z.array(z.string()).min(1) });

function planRequest(schema: ChatRequest['responseFormat'] = { name: 'plan', schema: Plan }): ChatRequest {
  return {
    purpose: 'plan',
    messages: [
      { role: 'system', content: 'You plan.' },
      { role: 'user', content: 'compute 12*12, then add 10' },
    ],
    responseFormat: schema,
  };
}

const loopback = useLoopbackServer({ apiKey: 'sk-test' });

const model = (options: Partial<OpenAIChatModelOptions> = {}) => loopback.model(options);

describe('structured output', () => {
  it('sends response_format json_schema from the zod schema and parses the reply', async () => {
    loopback.server.replyWith({ content: '{"steps":["compute 12*12","add 10"]}' });
    const response = await model().chat(planRequest());
    expect(response.parsed).toEqual({ steps: ['compute 12*12', 'add 10'] });
    const format = loopback.server.lastBody!.response_format!;
    expect(format.type).toBe('json_schema');
    expect(format.json_schema!.name).toBe('plan');
    expect(format.json_schema!.strict).toBe(true);
    expect(format.json_schema!.schema).toMatchObject({
      type: 'object',
      properties: { steps: { type: 'array' } },
      required: ['steps'],
      additionalProperties: false,
    });
  });

  it('sends strict false for a schema strict mode cannot take', async () => {
    loopback.server.replyWith({ content: '{"steps":["a"]}' });
    await model().chat(
      planRequest({ name: 'loose', schema: z.object({ steps: z.array(z.string()), note: z.string().optional() }) }),
    );
    expect(loopback.server.lastBody!.response_format!.json_schema!.strict).toBe(false);
  });

  it('prompt mode asks for JSON in the system prompt, strips fences and validates', async () => {
    loopback.server.replyWith({ content: 'Here you go:\n```json\n{"steps":["compute 12*12"]}\n```' });
    const response = await model({ structuredOutput: 'prompt' }).chat(planRequest());
    expect(response.parsed).toEqual({ steps: ['compute 12*12'] });
    const body = loopback.server.lastBody!;
    expect(body.response_format).toBeUndefined();
    expect(body.messages[0]!.content).toContain('You plan.');
    expect(body.messages[0]!.content).toContain('JSON schema named "plan"');
    expect(body.messages[0]!.content).toContain('"additionalProperties":false');
  });

  it('repairs once, showing the model the validation error', async () => {
    loopback.server
      .replyWith({ content: '{"steps": []}', usage: { input: 100, output: 5 } })
      .replyWith({ content: '{"steps":["compute 12*12"]}', usage: { input: 150, output: 9 } });
    const response = await model({ structuredOutput: 'prompt' }).chat(planRequest());
    expect(response.parsed).toEqual({ steps: ['compute 12*12'] });
    expect(response.content).toBe('{"steps":["compute 12*12"]}');
    expect(response.usage).toMatchObject({ inputTokens: 250, outputTokens: 14 });
    const repair = loopback.server.requests[1]!.body.messages;
    expect(repair.at(-2)).toEqual({ role: 'assistant', content: '{"steps": []}' });
    expect(repair.at(-1)!.role).toBe('user');
    expect(repair.at(-1)!.content).toContain('does not match the schema');
    expect(repair.at(-1)!.content).toContain('steps');
  });

  it('fails with invalid_response when the repair is still invalid', async () => {
    loopback.server.replyWith({ content: 'not json at all' }).replyWith({ content: '{"steps": "one"}' });
    const error = (await model({ structuredOutput: 'prompt' })
      .chat(planRequest())
      .catch((caught: unknown) => caught)) as ModelError;
    expect(error).toBeInstanceOf(ModelError);
    expect(error.kind).toBe('invalid_response');
    expect(error.message).toContain('after one repair attempt');
    expect(loopback.server.requests).toHaveLength(2);
  });

  it('falls back to prompt mode after a 400 to response_format, and stays there', async () => {
    loopback.server
      .fail(400, { message: "response_format 'json_schema' is not supported" })
      .replyWith({ content: '{"steps":["a"]}' })
      .replyWith({ content: '{"steps":["b"]}' });
    const chatModel = model();
    expect((await chatModel.chat(planRequest())).parsed).toEqual({ steps: ['a'] });
    expect((await chatModel.chat(planRequest())).parsed).toEqual({ steps: ['b'] });
    expect(loopback.server.requests.map((request) => request.body.response_format?.type ?? 'prompt')).toEqual([
      'json_schema',
      'prompt',
      'prompt',
    ]);
  });

  it('validates against a plain JSON schema too', async () => {
    const schema = {
      type: 'object',
      properties: { total: { type: 'number' } },
      required: ['total'],
      additionalProperties: false,
    };
    loopback.server.replyWith({ content: '{"total":"many"}' }).replyWith({ content: '{"total":154}' });
    const response = await model().chat(planRequest({ name: 'total', schema }));
    expect(response.parsed).toEqual({ total: 154 });
    expect(loopback.server.requests[0]!.body.response_format!.json_schema!.schema).toEqual(schema);
  });

  it('parses a streamed reply too', async () => {
    loopback.server.streamReply({ content: '{"steps":["compute 12*12","add 10"]}', splitEvery: 4 });
    const response = await model().chatStream(planRequest(), () => undefined);
    expect(response.parsed).toEqual({ steps: ['compute 12*12', 'add 10'] });
  });

  it('does not parse a reply cut off by the length limit', async () => {
    loopback.server.replyWith({ content: '{"steps":["comp', finishReason: 'length' });
    const response = await model().chat(planRequest());
    expect(response.finishReason).toBe('length');
    expect(response.parsed).toBeUndefined();
    expect(loopback.server.requests).toHaveLength(1);
  });
});

describe('stripCodeFences', () => {
  it('handles fences with and without a language, and bare JSON', () => {
    expect(stripCodeFences('```json\n{"a":1}\n```')).toBe('{"a":1}');
    expect(stripCodeFences('```\n[1,2]\n```')).toBe('[1,2]');
    expect(stripCodeFences('  {"a":1}  ')).toBe('{"a":1}');
  });
});
