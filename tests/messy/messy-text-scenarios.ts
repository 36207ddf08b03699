// Messy models, the text-protocol family: slips in `Action:` replies of models without native tool calls.
import { action, answer, repaired, textCall, textFinish, type Scenario } from './messy-scenario.js';

export const textScenarios: Scenario[] = [
  {
    name: 'an Action line after some reasoning text',
    arrange: (s) => s.replyWith({ content: `I should use the calculator.\nAction: ${textCall}` }).replyWith(textFinish),
    expected: repaired(0),
  },
  {
    name: 'an Action line with text after the JSON',
    arrange: (s) =>
      s.replyWith({ content: `Action: ${textCall} and then I will wait for the result.` }).replyWith(textFinish),
    expected: repaired(0),
  },
  {
    name: 'an Action without "type"',
    arrange: (s) =>
      s.replyWith(action('{"name":"calculator","args":{"expression":"17 * 23 + 4"}}')).replyWith(textFinish),
    expected: repaired(0),
  },
  {
    name: 'an Action with "arguments" instead of "args"',
    arrange: (s) =>
      s
        .replyWith(action('{"type":"tool","name":"calculator","arguments":{"expression":"17 * 23 + 4"}}'))
        .replyWith(textFinish),
    expected: repaired(0),
  },
  {
    name: 'a finish without "type"',
    arrange: (s) => s.replyWith(action(textCall)).replyWith(action('{"answer":"17 * 23 + 4 = 395."}')),
    expected: repaired(0),
  },
  {
    name: 'an Action in single quotes',
    arrange: (s) =>
      s
        .replyWith(action("{'type': 'tool', 'name': 'calculator', 'args': {'expression': '17 * 23 + 4'}}"))
        .replyWith(action(textCall))
        .replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'an Action with a trailing comma',
    arrange: (s) =>
      s
        .replyWith(action('{"type":"tool","name":"calculator","args":{"expression":"17 * 23 + 4"},}'))
        .replyWith(action(textCall))
        .replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'an Action line cut off',
    arrange: (s) =>
      s
        .replyWith(action('{"type":"tool","name":"calculator","args":{"expression":"17 *'))
        .replyWith(action(textCall))
        .replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'an Action naming an unknown tool',
    arrange: (s) =>
      s
        .replyWith(action('{"type":"tool","name":"python","args":{"code":"17*23+4"}}'))
        .replyWith(action(textCall))
        .replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'an Action naming the tool in another case',
    arrange: (s) =>
      s
        .replyWith(action('{"type":"tool","name":"Calculator","args":{"expression":"17 * 23 + 4"}}'))
        .replyWith(action(textCall))
        .replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'an Action followed by an invented Observation',
    arrange: (s) => s.replyWith({ content: `Action: ${textCall}\nObservation: 400` }).replyWith(textFinish),
    expected: repaired(0),
  },
  {
    name: 'an Action with no JSON at all',
    arrange: (s) =>
      s.replyWith({ content: 'Action: calculator 17 * 23 + 4' }).replyWith(action(textCall)).replyWith(textFinish),
    expected: repaired(1),
  },
  {
    name: 'a broken Action through both repairs: a truthful stop',
    arrange: (s) => {
      for (let n = 0; n < 3; n++) s.replyWith(action("{'type': 'tool'"));
      s.replyWith({ content: 'I could not call the tool.' });
    },
    expected: { status: 'stopped', kind: 'invalid_tool_call', repairs: 2 },
  },
  { name: 'a plain answer with no Action line', arrange: (s) => s.replyWith(answer), expected: repaired(0) },
];
