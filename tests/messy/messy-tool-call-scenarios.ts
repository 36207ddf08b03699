// Messy models, the tool-call family: native tool calls with broken arguments, odd names or missing ids.
import { answer, good, raw, rawCall, repaired, type Scenario } from './messy-scenario.js';

export const toolCallScenarios: Scenario[] = [
  {
    name: 'arguments as a JSON object instead of a string',
    unobserved: true,
    arrange: (s) => s.raw(200, rawCall('calculator', { expression: '17 * 23 + 4' })).replyWith(answer),
    expected: repaired(0),
  },
  {
    name: 'arguments with a trailing comma',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '{"expression": "17 * 23 + 4",}' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'arguments in single quotes',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: "{'expression': '17 * 23 + 4'}" }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'arguments cut off mid-string (finish "tool_calls")',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '{"expression": "17 * 2' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'arguments cut off by the length limit',
    arrange: (s) =>
      s
        .replyWith({ toolCalls: [{ ...good(), arguments: '{"expression": "17 *' }], finishReason: 'length' })
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(0),
  },
  {
    name: 'an unknown tool name',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), name: 'calc' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'the tool name in another case',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), name: 'Calculator' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'the tool name in another case, kept through both repairs: taken as meant',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), name: 'CALCULATOR' }])
        .replyWithToolCalls([{ ...good(), name: 'CALCULATOR' }])
        .replyWithToolCalls([{ ...good(), name: 'Calculator' }])
        .replyWith(answer),
    expected: repaired(2),
  },
  {
    name: 'a tool name with spaces around it',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), name: ' calculator ' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'an unknown tool name through both repairs: the tool error reaches the model, which answers',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), name: 'math' }])
        .replyWithToolCalls([{ ...good(), name: 'math' }])
        .replyWithToolCalls([{ ...good(), name: 'math' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(2),
  },
  {
    name: 'arguments as a double-encoded JSON string',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: JSON.stringify('{"expression":"17 * 23 + 4"}') }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'arguments as a JSON array',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '["17 * 23 + 4"]' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'arguments wrapped in a markdown fence',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '```json\n{"expression":"17 * 23 + 4"}\n```' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'empty arguments: the tool says what is missing, the model corrects',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(0),
  },
  {
    name: 'a misspelt parameter name: the tool error, then the corrected call',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good(), arguments: '{"expr":"17 * 23 + 4"}' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(0),
  },
  {
    name: 'two calls in one reply, one of them broken',
    arrange: (s) =>
      s
        .replyWithToolCalls([good('a'), { ...good('b'), arguments: '{expression: 1}' }])
        .replyWithToolCalls([good()])
        .replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'broken arguments through both repairs: run as written, the tool error, then a good call',
    arrange: (s) => {
      for (let n = 0; n < 3; n++) s.replyWithToolCalls([{ ...good(), arguments: '{"expression": 17 * 23 + 4}' }]);
      s.replyWithToolCalls([good()]).replyWith(answer);
    },
    expected: repaired(2),
  },
  {
    name: 'text and a tool call in the same reply',
    arrange: (s) => s.replyWith({ content: 'Let me compute that.', toolCalls: [good()] }).replyWith(answer),
    expected: repaired(0),
  },
  {
    name: 'a tool call with no id',
    unobserved: true,
    arrange: (s) =>
      s
        .raw(
          200,
          raw({
            tool_calls: [
              { type: 'function', function: { name: 'calculator', arguments: '{"expression":"17 * 23 + 4"}' } },
            ],
          }),
        )
        .replyWith(answer),
    expected: repaired(0),
  },
];
