import { describe, expect, it } from 'vitest';
import {
  defaultInstructions,
  oneLine,
  renderMessages,
  renderNotes,
  renderPlan,
  renderResults,
  renderSystemPrompt,
  stepBrief,
} from '../../../stages/shared/prompts.js';
import { makeState } from '../../support/helpers.js';
import { planSlotFor } from '../../support/plan-slot.js';

const tool = { name: 'calculator', description: 'arithmetic', parameters: {}, strict: false };

describe('prompts', () => {
  it('the system prompt lists the tools and the facts after the instructions', () => {
    expect(renderSystemPrompt('Be brief.', [], [])).toBe('Be brief.');
    expect(renderSystemPrompt('Be brief.', [tool], ['city: Lisbon'])).toBe(
      'Be brief.\n\nTools you can call:\n- calculator: arithmetic\n\nFacts you can rely on:\n- city: Lisbon',
    );
  });

  it("renders the conversation from the state: system, the session's turns with their records, then the task", () => {
    const state = makeState({ task: 'Add 10 to that' });
    expect(renderMessages(state)).toEqual([
      { role: 'system', content: renderSystemPrompt(defaultInstructions, [], []) },
      { role: 'user', content: 'Add 10 to that' },
    ]);
    state.history = {
      user: 'default',
      session: 'trip',
      summary: '',
      facts: [],
      turns: [{ seq: 1, runId: 'run-1', task: 'What is 12 * 12?', answer: '144', tools: [], at: 1 }],
    };
    expect(renderMessages(state).slice(1)).toEqual([
      { role: 'user', content: 'What is 12 * 12?', history: { part: 'task' } },
      { role: 'assistant', content: '144', history: { part: 'answer', answer: '144', completed: true } },
      { role: 'user', content: 'Add 10 to that' },
    ]);
  });

  it("inside a plan the user message is the current step's brief, with only the results it depends on", () => {
    const plan = planSlotFor({
      steps: [
        { description: 'square 12', status: 'completed' },
        { description: 'add 10', status: 'in_progress' },
      ],
      current: 1,
      results: [{ step: 1, description: 'square 12', outcome: 'completed', output: '144\n(exact)' }],
    });
    const state = makeState({ task: 'Square 12, then add 10', plan });
    const brief = renderMessages(state).at(-1)!.content;
    expect(brief).toBe(stepBrief('Square 12, then add 10', plan));
    expect(brief).toContain('Goal: Square 12, then add 10');
    expect(brief).toContain('Results of the steps it depends on:\nStep 1 (completed): square 12\nResult: 144 (exact)');
    expect(brief).toContain('Current step (2 of 2): add 10');
    expect(renderPlan(plan)).toBe('1. [completed] s1: square 12\n2. [in_progress] s2: add 10');
  });

  it('a plan that is not a chain shows what each step waits for', () => {
    const plan = planSlotFor({
      steps: [
        { description: 'a', status: 'pending' },
        { description: 'b', status: 'pending' },
        { description: 'sum', status: 'pending' },
      ],
      current: 0,
    });
    plan.steps[1]!.dependsOn = [];
    plan.steps[2]!.dependsOn = ['s1', 's2'];
    expect(renderPlan(plan)).toBe('1. [pending] s1: a\n2. [pending] s2: b\n3. [pending] s3: sum (after s1, s2)');
  });

  it('results, notes and one-line text', () => {
    expect(renderResults([{ step: 2, id: 's2', description: 'add', outcome: 'partial', output: 'about\n  154' }])).toBe(
      'Step 2 (partial): add\nResult: about 154',
    );
    expect(renderNotes(['one', 'two'])).toBe('Notes from the runtime:\n- one\n- two');
    expect(oneLine('  a \n b\n')).toBe('a b');
  });
});
