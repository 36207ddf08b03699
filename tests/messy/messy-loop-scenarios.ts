// Messy models, the loop family: repeated and endless calls, and what the loop guard refuses and lets through.
import { answer, done, good, type Scenario } from './messy-scenario.js';

export const loopScenarios: Scenario[] = [
  {
    name: 'the same failing call forever',
    arrange: (s) => {
      for (let n = 1; n <= 4; n++)
        s.replyWithToolCalls([{ id: `c${n}`, name: 'calculator', arguments: '{"expression":"17 / / 23"}' }]);
      s.replyWith({ content: 'Partial: the calculator rejects my expression.' });
    },
    expected: { status: 'stopped', kind: 'loop_detected', answer: /Partial/ },
  },
  {
    name: 'the same failing call with its keys reordered and spaced',
    arrange: (s) => {
      const forms = ['{"expression":"1/"}', '{ "expression" : "1/" }', '{"expression":"1/"}', '{"expression": "1/"}'];
      forms.forEach((args, n) => s.replyWithToolCalls([{ id: `c${n}`, name: 'calculator', arguments: args }]));
      s.replyWith({ content: 'Partial.' });
    },
    expected: { status: 'stopped', kind: 'loop_detected' },
  },
  {
    name: 'two failing calls in turn',
    arrange: (s) => {
      for (let n = 1; n <= 10; n++)
        s.replyWithToolCalls([
          { id: `c${n}`, name: 'calculator', arguments: n % 2 === 0 ? '{"expression":"1/"}' : '{"expression":"2/"}' },
        ]);
      s.replyWith({ content: 'Partial.' });
    },
    expected: { status: 'stopped', kind: /^(loop_detected|evaluate_stop)$/ },
  },
  {
    name: 'a model that never stops calling tools (new arguments each time)',
    arrange: (s) => {
      for (let n = 1; n <= 10; n++)
        s.replyWithToolCalls([{ id: `c${n}`, name: 'calculator', arguments: `{"expression":"${n} + 1"}` }]);
      s.replyWith({ content: 'Partial: small sums only.' });
    },
    expected: { status: 'stopped', kind: 'max_iterations', answer: /Partial/ },
  },
  {
    name: 'the same successful call forever is never refused: the iteration cap ends it',
    arrange: (s) => {
      for (let n = 1; n <= 10; n++) s.replyWithToolCalls([good(`c${n}`)]);
      s.replyWith({ content: 'Partial: 395, computed many times.' });
    },
    expected: { status: 'stopped', kind: 'max_iterations', answer: /395/ },
  },
  {
    name: 'a failing call, then a different one that works',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good('a'), arguments: '{"expression":"17 * 23 +"}' }])
        .replyWithToolCalls([good('b')])
        .replyWith(answer),
    expected: done,
  },
  {
    name: 'a failing call twice, then the right one (not refused)',
    arrange: (s) =>
      s
        .replyWithToolCalls([{ ...good('a'), arguments: '{"expression":"17x23"}' }])
        .replyWithToolCalls([{ ...good('b'), arguments: '{"expression":"17x23"}' }])
        .replyWithToolCalls([good('c')])
        .replyWith(answer),
    expected: done,
  },
];
