// Whole ReAct runs on recorded answers of real providers (tests/fixtures/providers/chat-completions), replayed on
// loopback to the real OpenAIChatModel: what a user of DeepSeek, a legacy-function server or a cut reply lives through.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/react.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { makeIds } from '../support/helpers.js';
import { recording } from '../support/chat-corpus.js';
import { startReplayServer, type ReplayServer } from '../support/replay-server.js';

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

const asked: string[] = [];
const tools = new ToolRegistry([
  defineTool({
    name: 'weather',
    description: 'Current weather in a place.',
    parameters: z.object({ location: z.string() }),
    execute: ({ location }) => (asked.push(location), `${location}: 7 °C, cloudy`),
  }),
  defineTool({
    name: 'execute_python_code',
    description: 'Runs Python code.',
    parameters: z.object({ code: z.string() }),
    execute: ({ code }) => (asked.push(code), 'done'),
  }),
]);

async function run(listen: boolean) {
  const events: RunEvent[] = [];
  const model = new OpenAIChatModel({
    baseUrl: server.url('/v1'),
    model: 'recorded',
    apiKey: 'sk-test',
    maxRetries: 0,
  });
  const result = await runPipeline(
    reactPipeline({ guards: false }),
    { task: 'What is the weather in San Francisco?' },
    { deps: { model, tools, ids: makeIds('run'), ...(listen && { onEvent: (event) => events.push(event) }) } },
  );
  return { result, events };
}

describe('a ReAct run on recorded provider answers', () => {
  it.each([false, true])(
    'DeepSeek thinking mode: the tool-call message goes back with its reasoning_content (someone listening: %s)',
    async (listen) => {
      // The recordings are whole JSON bodies: to a streamed request (someone listens) they are the whole reply.
      server.queue(recording('deepseek/tool-call.json').answer, recording('deepseek/text.json').answer);
      const { result, events } = await run(listen);
      expect(result.status).toBe('completed');
      const sent = server.requests[1]!.body as { messages: Array<Record<string, unknown>> };
      const call = sent.messages.find((message) => message.role === 'assistant');
      expect(call).toMatchObject({
        reasoning_content: "The user asks about weather in San Francisco. I'll call the weather tool.",
        tool_calls: [{ function: { name: 'weather', arguments: '{"location": "San Francisco"}' } }],
      });
      if (listen)
        expect(events.filter((event) => event.type === 'reasoning_delta').map((event) => event.data)).toEqual([
          { purpose: 'think', text: "The user asks about weather in San Francisco. I'll call the weather tool." },
        ]);
    },
  );

  it('a legacy function_call runs as a tool call, and the run answers after it', async () => {
    server.queue(
      recording('openai/legacy-function-call-gpt-4.json').answer,
      recording('openai/text-gpt-4-2023.json').answer,
    );
    asked.length = 0;
    const { result } = await run(false);
    expect(asked).toEqual([expect.stringContaining('time.sleep(300)')]);
    expect([result.status, result.answer]).toEqual(['completed', 'Hello to you too! How may I assist you today?']);
  });

  it('a reply cut by finish_reason length ends the run as a truncation, partial, not completed', async () => {
    server.queue(recording('deepseek/length-inside-reasoning.json').answer);
    const { result } = await run(false);
    expect(result.stopReason.kind).toBe('truncation');
    expect(result.partial).toBe(true);
  });
});
