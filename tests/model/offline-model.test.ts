import { describe, expect, it } from 'vitest';
import { planSchema } from '../../stages/plan/plan.js';
import { replanSchema } from '../../stages/plan/replan.js';
import { findExpression, splitTask, stepExpression } from '../../src/model/offline-arithmetic.js';
import { OfflineModel, offlineNotice } from '../../src/model/offline-model.js';
import type { ChatRequest, ToolDefinition } from '../../src/model/types.js';

const calculator: ToolDefinition = {
  name: 'calculator',
  description: 'arithmetic',
  parameters: { type: 'object' },
  strict: true,
};
const model = new OfflineModel();

describe('offline arithmetic rules', () => {
  it('finds the arithmetic in a sentence, spelled-out operators included', () => {
    expect(findExpression('What is 17 * 23 + 4?')).toBe('17 * 23 + 4');
    expect(findExpression('what is 5 plus 3 times 2')).toBe('5 + 3 * 2');
    expect(findExpression('Compute (2+3)*4.')).toBe('(2+3)*4');
    expect(findExpression('I have 3 apples')).toBeUndefined();
  });

  it('splits a multi-part task and turns each part into an expression over the previous result', () => {
    expect(splitTask('Compute 12*12, then add 10, then divide by 2')).toEqual([
      'Compute 12*12',
      'Add 10',
      'Divide by 2',
    ]);
    expect(splitTask('What is 2 + 2?')).toEqual(['What is 2 + 2']);
    expect(stepExpression('Add 10', '144')).toBe('144 + 10');
    expect(stepExpression('Multiply it by 3', '5')).toBe('5 * 3');
    expect(stepExpression('Subtract 4', '10')).toBe('10 - 4');
    expect(stepExpression('Divide by 2', undefined)).toBeUndefined();
  });
});

describe('OfflineModel', () => {
  const ask = (request: Partial<ChatRequest> & Pick<ChatRequest, 'purpose' | 'messages'>) =>
    model.chat(request as ChatRequest);

  it('is labelled as the offline model', () => {
    expect([model.provider, model.modelName]).toEqual(['offline', 'stageloop-offline']);
  });

  it('as a reasoner calls the calculator, then answers from its result', async () => {
    const messages: ChatRequest['messages'] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'What is 6 * 7?' },
    ];
    const first = await ask({ purpose: 'think', messages, tools: [calculator] });
    expect(first).toMatchObject({
      finishReason: 'tool_calls',
      toolCalls: [{ name: 'calculator', arguments: '{"expression":"6 * 7"}' }],
    });
    const call = first.toolCalls[0]!;
    const second = await ask({
      purpose: 'think',
      tools: [calculator],
      messages: [
        ...messages,
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', toolCallId: call.id, name: 'calculator', content: '42' },
      ],
    });
    expect(second).toMatchObject({ content: '6 * 7 = 42', toolCalls: [], finishReason: 'stop' });
  });

  it('without a calculator or without arithmetic it says what it is', async () => {
    const noTool = await ask({ purpose: 'think', messages: [{ role: 'user', content: 'What is 6 * 7?' }] });
    expect(noTool.content).toMatch(/need the calculator tool to compute 6 \* 7/);
    const chat = await ask({ purpose: 'think', messages: [{ role: 'user', content: 'hello' }], tools: [calculator] });
    expect(chat.content).toBe(offlineNotice);
  });

  it('as a triage agent (handoffs offered, no calculator) hands off to the agent the task names, else the first', async () => {
    const transfer = (name: string): ToolDefinition => ({
      name: `transfer_to_${name}`,
      description: 'hand off',
      parameters: { type: 'object', properties: {} },
      strict: true,
    });
    const tools = [transfer('multiplier'), transfer('subtractor')];
    const named = await ask({
      purpose: 'think',
      messages: [{ role: 'user', content: 'What is 100 - 58? Ask the subtractor.' }],
      tools,
    });
    expect(named).toMatchObject({
      finishReason: 'tool_calls',
      toolCalls: [{ name: 'transfer_to_subtractor', arguments: '{}' }],
    });
    const unnamed = await ask({ purpose: 'think', messages: [{ role: 'user', content: 'What is 6 * 7?' }], tools });
    expect(unnamed.toolCalls).toMatchObject([{ name: 'transfer_to_multiplier' }]);
  });

  it('honours a zod response format for plans and replans: JSON content and a parsed value', async () => {
    const plan = await ask({
      purpose: 'plan',
      messages: [{ role: 'user', content: 'Compute 12*12, then add 10' }],
      responseFormat: { name: 'plan', schema: planSchema(8) },
    });
    expect(plan.parsed).toEqual({
      goal: 'Compute 12*12, then add 10',
      steps: [
        { id: 's1', description: 'Compute 12*12', dependsOn: [] },
        { id: 's2', description: 'Add 10', dependsOn: ['s1'] },
      ],
    });
    expect(JSON.parse(plan.content)).toEqual(plan.parsed);
    const tooSmall = ask({
      purpose: 'plan',
      messages: [{ role: 'user', content: 'a, then b, then c' }],
      responseFormat: { name: 'plan', schema: planSchema(2) },
    });
    await expect(tooSmall).rejects.toMatchObject({ kind: 'invalid_response' });
    const replan = await ask({
      purpose: 'replan',
      messages: [{ role: 'user', content: 'x' }],
      responseFormat: { name: 'replan', schema: replanSchema },
    });
    expect(replan.parsed).toMatchObject({ need_replan: false, new_steps: [] });
  });

  it('as a summarizer answers from the step results', async () => {
    const reply = await ask({
      purpose: 'summarize',
      messages: [
        {
          role: 'user',
          content:
            'Task: t\n\nStep results:\nStep 1 (completed): a\nResult: 2 + 2 = 4\nStep 2 (completed): b\nResult: 4 * 3 = 12',
        },
      ],
    });
    expect(reply.content).toBe('2 + 2 = 4; 4 * 3 = 12. The answer is 12.');
  });

  it('respects an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(model.chat({ purpose: 'think', messages: [] }, controller.signal)).rejects.toMatchObject({
      kind: 'aborted',
    });
  });
});
