// serve's token guards every protocol endpoint: each real client is refused without it and served with it.
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { useServes } from '../server/serve-support.js';

const serves = useServes();
const token = 'a-long-test-token';
const withToken: typeof fetch = (input, init) =>
  fetch(input, {
    ...init,
    headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), authorization: `Bearer ${token}` },
  });

describe('the token of stageloop serve on the protocol endpoints', () => {
  it('openai: 401 as AuthenticationError without the token, an answer with it', async () => {
    const serve = await serves.start({}, { token });
    const refused = await new OpenAI({
      baseURL: `${serve.running.url}/v1`,
      apiKey: 'wrong-token',
      maxRetries: 0,
    }).models
      .list()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    const completion = await new OpenAI({
      baseURL: `${serve.running.url}/v1`,
      apiKey: token,
      maxRetries: 0,
    }).chat.completions.create({ model: 'react', messages: [{ role: 'user', content: 'What is 2 + 3?' }] });
    expect(completion.choices[0]!.message.content).toContain('5');
  });

  it('ai: the transport is refused without the token and streams with it', async () => {
    const serve = await serves.start({}, { token });
    const messages: UIMessage[] = [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'What is 2 + 3?' }] }];
    const options = {
      chatId: 'c',
      messages,
      trigger: 'submit-message' as const,
      messageId: undefined,
      abortSignal: undefined,
    };
    await expect(
      new DefaultChatTransport({ api: `${serve.running.url}/v1/chat` }).sendMessages(options),
    ).rejects.toThrow(/needs a token/);
    const stream = await new DefaultChatTransport({
      api: `${serve.running.url}/v1/chat`,
      headers: { authorization: `Bearer ${token}` },
    }).sendMessages(options);
    const types: string[] = [];
    for await (const chunk of stream) types.push(chunk.type);
    expect(types.at(-1)).toBe('finish');
  });

  it('MCP: /mcp is refused without the token and lists tools with it', async () => {
    const serve = await serves.start({}, { token });
    const refused = new Client({ name: 'test', version: '1.0.0' });
    await expect(
      refused.connect(new StreamableHTTPClientTransport(new URL(`${serve.running.url}/mcp`))),
    ).rejects.toThrow();
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${serve.running.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('react');
    await client.close();
  });

  it('A2A: the card and /a2a are refused without the token and answer with it', async () => {
    const serve = await serves.start({}, { token });
    await expect(new ClientFactory().createFromUrl(serve.running.url)).rejects.toThrow();
    // The card with the token, the JSON-RPC calls without it: refused.
    const cardOnly = await new ClientFactory({
      transports: [new JsonRpcTransportFactory()],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: withToken }),
    }).createFromUrl(serve.running.url);
    await expect(cardOnly.getTask({ tenant: '', id: 'some-task', historyLength: undefined })).rejects.toThrow();
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: withToken })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: withToken }),
    }).createFromUrl(serve.running.url);
    expect((await client.getAgentCard()).skills.length).toBe(2);
    await expect(client.getTask({ tenant: '', id: 'some-task', historyLength: undefined })).rejects.toThrow(
      /not found/i,
    );
  });
});
