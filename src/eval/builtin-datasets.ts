// The built-in datasets: tasks the offline model answers (arithmetic, multi-step), so `stageloop eval` runs with no key.
export const builtInDatasets: Readonly<Record<string, readonly object[]>> = {
  arithmetic: [
    { id: 'multiply', task: 'What is 17 * 23?', expected: 391, tags: ['single-step'] },
    { id: 'add-then-multiply', task: 'What is 17 * 23 + 4?', expected: 395, tags: ['single-step'] },
    { id: 'words', task: 'What is 12 plus 30?', expected: 42, tags: ['single-step'] },
    {
      id: 'divide',
      task: 'What is 144 / 12?',
      expected: 12,
      graders: [
        { type: 'number', value: 12 },
        { type: 'tool-called', name: 'calculator' },
      ],
      tags: ['single-step'],
    },
    { id: 'power', task: 'What is 2 ^ 10?', expected: 1024, tags: ['single-step'] },
    {
      id: 'three-steps',
      task: 'Compute 12 * 12, then add 8 to the result, then divide it by 4',
      expected: 38,
      tags: ['multi-step'],
    },
    { id: 'two-steps', task: 'Compute 15 * 4, then subtract 18 from the result', expected: 42, tags: ['multi-step'] },
    {
      id: 'completes',
      task: 'What is 7 * 6?',
      graders: [
        { type: 'stop-reason', kind: 'completed' },
        { type: 'regex', pattern: '\\b42\\b' },
      ],
      tags: ['single-step'],
    },
  ],
};
