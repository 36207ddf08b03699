// Messy models, the budget and answer families: huge prompts, small windows, empty, echoed and cut answers.
import { answer, done, good, repaired, type Scenario } from './messy-scenario.js';

export const budgetScenarios: Scenario[] = [
  {
    name: 'a huge prompt every turn: the default token budget ends it with a graceful answer',
    arrange: (s) => {
      for (let n = 1; n <= 3; n++) s.replyWithToolCalls([good(`c${n}`)], { usage: { input: 45_000, output: 500 } });
      s.replyWith({ content: 'Final: 395.', usage: { input: 45_000, output: 500 } });
    },
    expected: { status: 'stopped', kind: 'budget_tokens', answer: /395/ },
  },
  {
    name: 'long tool outputs in a small window (gpt-4, 8,192 tokens): older ones are pruned and the run answers',
    modelName: 'gpt-4',
    arrange: (s) => {
      for (let n = 1; n <= 4; n++)
        s.replyWithToolCalls([{ id: `p${n}`, name: 'fetch_page', arguments: `{"url":"https://example.com/${n}"}` }]);
      s.replyWithToolCalls([good()]).replyWith(answer);
    },
    expected: done,
  },
  {
    name: 'a model that answers once told the budget is nearly spent',
    arrange: (s) =>
      s
        .replyWithToolCalls([good()], { usage: { input: 85_000, output: 10 } })
        .replyWith({ ...answer, usage: { input: 1_000, output: 10 } }),
    expected: done,
  },
];

export const answerScenarios: Scenario[] = [
  {
    name: 'an empty reply, then the answer',
    arrange: (s) => s.replyWith({ content: '' }).replyWith(answer),
    expected: done,
  },
  {
    name: 'empty replies forever: the iteration cap, a truthful partial stop',
    maxIterations: 4,
    arrange: (s) => {
      for (let n = 0; n < 5; n++) s.replyWith({ content: '' });
    },
    expected: { status: 'stopped', kind: 'max_iterations' },
  },
  {
    name: 'a reply that repeats the question, then the answer',
    arrange: (s) => s.replyWith({ content: 'Use the calculator: what is 17 * 23 + 4?' }).replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'a reply that repeats the question in other case and punctuation, then a tool call',
    arrange: (s) =>
      s.replyWith({ content: 'use the calculator what is 17*23 + 4' }).replyWithToolCalls([good()]).replyWith(answer),
    expected: repaired(1),
  },
  {
    name: 'answers before using the tool it was told to use (the right number)',
    arrange: (s) => s.replyWith(answer),
    expected: done,
  },
  {
    name: 'a text answer cut by the length limit is kept, as a partial answer stopped by truncation',
    arrange: (s) => s.replyWith({ content: '17 * 23 + 4 = 395, because 17 * 23 is', finishReason: 'length' }),
    expected: { status: 'stopped', kind: /^truncation$/, answer: /395/ },
  },
  {
    name: 'a tool call in the tools-less final turn is ignored and the summary answers',
    maxIterations: 2,
    arrange: (s) =>
      s
        .replyWithToolCalls([good('a')])
        .replyWithToolCalls([good('b')])
        .replyWith({ content: 'Partial: 395.' }),
    expected: { status: 'stopped', kind: /^(max_iterations|budget_iterations)$/, answer: /395/ },
  },
];
