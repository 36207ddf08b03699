// toolProtocol 'text': tools described in the system prompt, Action lines parsed into tool calls or the answer.
import { describe, expect, it } from 'vitest';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { parseActions } from '../../src/model/text-tool-protocol.js';
import { ModelError, type ChatRequest } from '../../src/model/types.js';
import { useLoopbackServer } from '../support/loopback-model.js';

const calculatorSchema = { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] };
const request: ChatRequest = {
  purpose: 'think',
  messages: [
    { role: 'system', content: 'You solve arithmetic.' },
    { role: 'user', content: 'What is 12*12?' },
  ],
  tools: [
    {
      name: 'calculator',
      description: 'Evaluates an arithmetic expression',
      parameters: calculatorSchema,
      strict: true,
    },
  ],
  toolChoice: 'auto',
};

const loopback = useLoopbackServer({ model: 'plain-model', toolProtocol: 'text' });

function model(): OpenAIChatModel {
  let count = 0;
  return loopback.model({ newId: () => `text_${++count}` });
}

describe("toolProtocol 'text'", () => {
  it('describes the tools in the system prompt and sends no tools field', async () => {
    loopback.server.replyWith({ content: 'Action: {"type":"finish","answer":"144"}' });
    await model().chat(request);
    const body = loopback.server.lastBody!;
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
    const system = body.messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toContain('You solve arithmetic.');
    expect(system.content).toContain('Action: {"type":"tool"');
    expect(system.content).toContain('- calculator: Evaluates an arithmetic expression');
    expect(system.content).toContain(JSON.stringify(calculatorSchema));
  });

  it('turns an Action tool line into a tool call with a generated id', async () => {
    loopback.server.replyWith({
      content: 'I should compute it.\nAction: {"type":"tool","name":"calculator","args":{"expression":"12*12"}}',
    });
    const response = await model().chat(request);
    expect(response.toolCalls).toEqual([{ id: 'text_1', name: 'calculator', arguments: '{"expression":"12*12"}' }]);
    expect(response.finishReason).toBe('tool_calls');
    expect(response.content).toBe('I should compute it.');
  });

  it('turns a finish Action into the answer', async () => {
    loopback.server.replyWith({ content: 'Thought: done.\nAction: {"type":"finish","answer":"12*12 = 144"}' });
    const response = await model().chat(request);
    expect(response.content).toBe('12*12 = 144');
    expect(response.toolCalls).toEqual([]);
    expect(response.finishReason).toBe('stop');
  });

  it('renders earlier tool calls as Action lines and tool results as observations', async () => {
    loopback.server.replyWith({ content: 'Action: {"type":"finish","answer":"144"}' });
    await model().chat({
      ...request,
      messages: [
        ...request.messages,
        {
          role: 'assistant',
          content: 'Computing.',
          toolCalls: [{ id: 'text_1', name: 'calculator', arguments: '{"expression":"12*12"}' }],
        },
        { role: 'tool', toolCallId: 'text_1', name: 'calculator', content: '144' },
      ],
    });
    const messages = loopback.server.lastBody!.messages;
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[2]!.content).toBe(
      'Computing.\nAction: {"type":"tool","name":"calculator","args":{"expression":"12*12"}}',
    );
    expect(messages[3]!.content).toBe('Observation from calculator (call text_1):\n144');
    expect(messages.some((message) => message.tool_calls !== undefined || message.tool_call_id !== undefined)).toBe(
      false,
    );
  });

  it('ignores an Observation the model invented and the answer after it', async () => {
    loopback.server.replyWith({
      content:
        'Action: {"type":"tool","name":"calculator","args":{"expression":"2+2"}}\nObservation: 5\nAction: {"type":"finish","answer":"5"}',
    });
    const response = await model().chat(request);
    expect(response.toolCalls.map((call) => call.arguments)).toEqual(['{"expression":"2+2"}']);
    expect(response.content).toBe('');
  });

  it('says exactly why an Action line is not valid JSON, for think to show the model in a repair turn', async () => {
    loopback.server.replyWith({ content: "Action: {'type': 'tool', name: calculator}" });
    const response = await model().chat(request);
    expect(response.toolCalls).toEqual([]);
    expect(response.toolCallProblem).toMatch(
      /^Your Action line could not be read: an Action line is not valid JSON \(.*JSON.*\): \{'type': 'tool', name: calculator\}$/,
    );
  });

  it('reads an Action without "type" as a tool call or a finish, and "arguments" as "args"', async () => {
    loopback.server
      .replyWith({ content: 'Action: {"name":"calculator","arguments":{"expression":"2+2"}}' })
      .replyWith({ content: 'Action: {"answer":"4"}' });
    expect((await model().chat(request)).toolCalls).toMatchObject([
      { name: 'calculator', arguments: '{"expression":"2+2"}' },
    ]);
    expect((await model().chat(request)).content).toBe('4');
  });

  it('takes a reply with no Action line as the plain answer', async () => {
    loopback.server.replyWith({ content: 'It is 144.' });
    const response = await model().chat(request);
    expect(response).toMatchObject({ content: 'It is 144.', toolCalls: [], finishReason: 'stop' });
  });

  it('parses the same when streamed', async () => {
    loopback.server.streamReply({
      content: 'Action: {"type":"tool","name":"calculator","args":{"expression":"7+5"}}',
      splitEvery: 5,
    });
    const response = await model().chatStream(request, () => undefined);
    expect(response.toolCalls).toEqual([{ id: 'text_1', name: 'calculator', arguments: '{"expression":"7+5"}' }]);
  });
});

describe('parseActions', () => {
  it('reads several tool actions and JSON spanning lines, with braces inside strings', () => {
    const text =
      'Action: {"type":"tool","name":"a","args":{"s":"}{"}}\nAction: {\n  "type": "tool",\n  "name": "b",\n  "args": {}\n}';
    expect(parseActions(text)).toEqual({
      kind: 'tools',
      calls: [
        { name: 'a', arguments: '{"s":"}{"}' },
        { name: 'b', arguments: '{}' },
      ],
    });
  });

  it('keeps a non-string answer as JSON text', () => {
    expect(parseActions('Action: {"type":"finish","answer":144}')).toEqual({ kind: 'finish', answer: '144' });
  });

  it('rejects an unknown action type', () => {
    expect(parseActions('Action: {"type":"search","q":"x"}').kind).toBe('invalid');
  });
});
