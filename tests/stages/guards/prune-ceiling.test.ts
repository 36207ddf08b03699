// prune's quick check (stages/guards/prune-ceiling.ts) counts only the messages added since its last turn: these are the
// changes that must still make it count again.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { prune } from '../../../stages/guards/prune.js';
import { tokenCeiling } from '../../../stages/guards/prune-ceiling.js';
import { loadTokenCounter, messageTokens, replyPrimingTokens } from '../../../src/model/token-count.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import type { ChatMessage } from '../../../src/model/types.js';
import { toolConversation } from '../../support/conversations.js';
import { makeCtx, makeState } from '../../support/helpers.js';

const big = (topic: string) =>
  `${topic} results:\n` + `The ${topic} page lists many details about ${topic} that go on and on. `.repeat(120);
const short = (topic: string) => `${topic}: ok`;

/** system, task and two small tool rounds: far under a 1,000-token budget even at three tokens a character. */
function small(): ChatMessage[] {
  return toolConversation(2, { system: 'You are a research assistant.', task: 'Compare the cities.', page: short });
}

describe('prune counting only what is new', () => {
  it('tokenCeiling is never below the tokenizer count of the same messages', async () => {
    const count = await loadTokenCounter();
    const messages = toolConversation(2, { system: 'You are a research assistant.', task: 'Compare.', page: big });
    const exact = messages.reduce((total, message) => total + messageTokens(count, message), replyPrimingTokens);
    expect(tokenCeiling(messages, makeCtx())).toBeGreaterThanOrEqual(exact);
  });

  it('counts the earlier messages again when one of them was replaced by a bigger one', async () => {
    const stage = prune({ budgetTokens: 1_000 });
    const ctx = makeCtx();
    const state = makeState({ messages: small() });
    await stage.execute(state, ctx);
    expect(state.prune).toBeUndefined();
    // The same list, an earlier tool result replaced in place: a count of only what was appended would miss it.
    state.messages[3] = { ...(state.messages[3] as ChatMessage & { role: 'tool' }), content: big('city 1') };
    await stage.execute(state, ctx);
    expect(state.prune?.history).toHaveLength(1);
    expect(state.messages[3]!.content).toMatch(/^\[condensed by prune:/);
  });

  it('counts a replaced list afresh, and what is appended to the same list', async () => {
    const stage = prune({ budgetTokens: 1_000 });
    const ctx = makeCtx();
    const state = makeState({ messages: small() });
    await stage.execute(state, ctx);
    state.messages = toolConversation(2, {
      system: 'You are a research assistant.',
      task: 'Compare the cities.',
      page: big,
    });
    await stage.execute(state, ctx);
    expect(state.prune?.history).toHaveLength(1);

    const growing = makeState({ messages: small() });
    await stage.execute(growing, ctx);
    growing.messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_3', name: 'search', arguments: '{"q":"city 3"}' }],
    });
    growing.messages.push({ role: 'tool', toolCallId: 'call_3', name: 'search', content: short('city 3') });
    await stage.execute(growing, ctx);
    expect(growing.prune).toBeUndefined();
    growing.messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_4', name: 'search', arguments: '{"q":"city 4"}' }],
    });
    growing.messages.push({ role: 'tool', toolCallId: 'call_4', name: 'search', content: big('city 4') });
    growing.messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_5', name: 'search', arguments: '{"q":"city 5"}' }],
    });
    growing.messages.push({ role: 'tool', toolCallId: 'call_5', name: 'search', content: short('city 5') });
    await stage.execute(growing, ctx);
    expect(growing.prune?.history).toHaveLength(1);
  });

  it('counts the tool definitions again when they change', async () => {
    const stage = prune({ budgetTokens: 1_000 });
    const state = makeState({ messages: small() });
    const tool = (description: string) =>
      defineTool({
        name: 'search',
        description,
        parameters: z.strictObject({ q: z.string() }),
        execute: async () => 'ok',
      });
    await stage.execute(state, makeCtx({ deps: { tools: new ToolRegistry([tool('Searches.')]) } }));
    expect(state.prune).toBeUndefined();
    await stage.execute(state, makeCtx({ deps: { tools: new ToolRegistry([tool(big('search'))]) } }));
    expect(state.prune?.lastTokens).toBeGreaterThan(0);

    // A box of its own may hand out other definitions each time: the same box is asked again.
    const changing = makeState({ messages: small() });
    let registry = new ToolRegistry([tool('Searches.')]);
    const box = {
      definitions: () => registry.definitions(),
      executeAll: (calls: Parameters<ToolRegistry['executeAll']>[0]) => registry.executeAll(calls),
    };
    const ctx = makeCtx({ deps: { tools: box } });
    await stage.execute(changing, ctx);
    expect(changing.prune).toBeUndefined();
    registry = new ToolRegistry([tool(big('search'))]);
    await stage.execute(changing, ctx);
    expect(changing.prune?.lastTokens).toBeGreaterThan(0);
  });

  it('keeps its count out of the saved state', async () => {
    const state = makeState({ messages: small() });
    await prune({ budgetTokens: 1_000 }).execute(state, makeCtx());
    expect(Object.getOwnPropertySymbols(state.messages)).toHaveLength(1);
    expect(JSON.stringify(state.messages)).toBe(JSON.stringify(small()));
    expect(Object.getOwnPropertySymbols(structuredClone(state.messages))).toEqual([]);
    expect(Object.keys(state.messages)).toEqual(['0', '1', '2', '3', '4', '5']);
    // Deep comparisons read enumerable symbol keys: the count is not one.
    expect(
      Object.getOwnPropertyDescriptor(state.messages, Object.getOwnPropertySymbols(state.messages)[0]!)?.enumerable,
    ).toBe(false);
    expect(state.messages).toEqual(small());
  });
});
