// The offline model with a skill: it loads the skill the task names first, then does the arithmetic as before; the
// skill's text is never taken for a calculator result.
import { describe, expect, it } from 'vitest';
import { OfflineModel } from '../../src/model/offline-model.js';
import type { ChatMessage, ChatRequest } from '../../src/model/types.js';
import { skillTools } from '../../src/tools/skills.js';
import { calculatorTool } from '../../src/tools/calculator.js';

const tools = [
  calculatorTool().definition,
  ...skillTools([{ name: 'vat-rates', description: 'VAT.', body: 'Rate 20.', folder: '/x', files: [] }]).map(
    (tool) => tool.definition,
  ),
];
const model = new OfflineModel();
const think = (messages: ChatMessage[]) => model.chat({ purpose: 'think', messages, tools } as ChatRequest);

describe('OfflineModel and skills', () => {
  it('calls load_skill when the task names a skill, then the calculator, then answers', async () => {
    const task: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'Use vat-rates: what is 100 * 1.2?' },
    ];
    const first = await think(task);
    expect(first.toolCalls).toEqual([{ id: 'offline_call_2', name: 'load_skill', arguments: '{"name":"vat-rates"}' }]);
    const loaded: ChatMessage[] = [
      ...task,
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      {
        role: 'tool',
        toolCallId: 'offline_call_2',
        name: 'load_skill',
        content: 'Skill "vat-rates": VAT. Rate 20 and 3.',
      },
    ];
    const second = await think(loaded);
    expect(second.toolCalls.map((call) => [call.name, call.arguments])).toEqual([
      ['calculator', '{"expression":"100 * 1.2"}'],
    ]);
    const third = await think([
      ...loaded,
      { role: 'assistant', content: '', toolCalls: second.toolCalls },
      {
        role: 'tool',
        toolCallId: second.toolCalls[0]!.id,
        name: 'calculator',
        content: 'Expression: 100 * 1.2 Result: 120',
      },
    ]);
    expect(third.content).toBe('100 * 1.2 = 120');
  });

  it('does not load a skill the task does not name', async () => {
    const reply = await think([{ role: 'user', content: 'What is 2 + 2?' }]);
    expect(reply.toolCalls.map((call) => call.name)).toEqual(['calculator']);
  });
});
