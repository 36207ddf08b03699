import { describe, expect, it } from 'vitest';
import { knowledgeSection } from '../../../stages/plan/plan-knowledge.js';
import { makeState } from '../../support/helpers.js';

const turn = (seq: number, task: string, answer: string) => ({
  seq,
  runId: `run-${seq}`,
  task,
  answer,
  tools: [],
  at: seq,
});

describe('knowledgeSection', () => {
  it('is empty when the agent knows nothing yet, or the share is 0', () => {
    expect(knowledgeSection(makeState(), 500)).toBe('');
    const state = makeState();
    state.context = { systemPrompt: 's', tools: [], facts: ['city: Lisbon'] };
    expect(knowledgeSection(state, 0)).toBe('');
  });

  it("shows the facts that fit, then the session's history", () => {
    const state = makeState();
    state.context = { systemPrompt: 's', tools: [], facts: ['city: Lisbon', 'days: 3'] };
    state.history = {
      user: 'default',
      session: 'trip',
      summary: '',
      facts: [],
      turns: [turn(1, 'What is 12 * 12?', '144')],
    };
    expect(knowledgeSection(state, 500)).toBe(
      'Facts you can rely on:\n- city: Lisbon\n- days: 3\n\nConversation so far in this session (oldest first):\nTurn 1 task: What is 12 * 12?\nTurn 1 answer: 144',
    );
  });

  it('an over-long history keeps its newest turns, and says the earlier ones are left out', () => {
    const state = makeState();
    const turns = Array.from({ length: 40 }, (_unused, index) =>
      turn(index + 1, `What is ${index} + 1? Show the working in full.`, `${index} + 1 = ${index + 1}`),
    );
    state.history = { user: 'default', session: 'long', summary: '', facts: [], turns };
    const section = knowledgeSection(state, 100);
    expect(section.startsWith('[earlier turns left out]\n')).toBe(true);
    expect(section.endsWith('Turn 40 answer: 39 + 1 = 40')).toBe(true);
    expect(section).not.toContain('Turn 1 task');
    expect(section.length).toBeLessThanOrEqual(100 * 4 + '[earlier turns left out]\n'.length);
  });
});
