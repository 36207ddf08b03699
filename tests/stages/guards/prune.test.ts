import { describe, expect, it } from 'vitest';
import { contextWindowFor, prune, unknownModelWindow } from '../../../stages/guards/prune.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import type { ChatMessage } from '../../../src/model/types.js';
import { toolConversation } from '../../support/conversations.js';
import { makeCtx, makeState } from '../../support/helpers.js';

const page = (topic: string) =>
  `${topic} results:\n` + `The ${topic} page lists many details about ${topic} that go on and on. `.repeat(60);

/** system, task, then `turns` tool rounds with a long result each. */
function conversation(turns: number): ChatMessage[] {
  return toolConversation(turns, {
    system: 'You are a research assistant. Plan:\n1. search\n2. answer',
    task: 'Compare the three cities.',
    page,
  });
}

/** Every assistant message with tool calls is followed by one tool message per call, as Chat Completions requires. */
function pairingIsValid(messages: readonly ChatMessage[]): boolean {
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === 'assistant' && message.toolCalls?.length) {
      const replies = messages.slice(index + 1, index + 1 + message.toolCalls.length);
      if (
        !message.toolCalls.every(
          (call, offset) =>
            replies[offset]?.role === 'tool' && (replies[offset] as { toolCallId: string }).toolCallId === call.id,
        )
      )
        return false;
    }
    if (
      message.role === 'tool' &&
      !messages
        .slice(0, index)
        .some(
          (earlier) =>
            earlier.role === 'assistant' && earlier.toolCalls?.some((call) => call.id === message.toolCallId),
        )
    )
      return false;
  }
  return true;
}

describe('prune', () => {
  it('does nothing under the budget', async () => {
    const state = makeState({ messages: conversation(1) });
    const before = structuredClone(state.messages);
    await prune({ budgetTokens: 100_000 }).execute(state, makeCtx());
    expect(state.messages).toEqual(before);
    // Far under the budget even at a token per character: the tokenizer is not run at all.
    expect(state.prune).toBeUndefined();
    const near = makeState({ messages: conversation(1) });
    await prune({ budgetTokens: 1_500 }).execute(near, makeCtx());
    expect(near.prune?.history).toEqual([]);
    expect(near.prune?.lastTokens).toBeGreaterThan(700);
  });

  it('observe-plan-act "Context & Token Budget", fallback "trigger context compression": condenses the oldest tool observations first and keeps system, task and the latest results', async () => {
    const state = makeState({ messages: conversation(4), iteration: 5 });
    const ctx = makeCtx();
    await prune({ budgetTokens: 2_500 }).execute(state, ctx);
    const tools = state.messages.filter((message) => message.role === 'tool');
    expect(tools[0]!.content).toMatch(
      /^\[condensed by prune: \d+ tokens of output from "search" removed to save context; first line: city 1 results:\]$/,
    );
    expect(tools[3]!.content).toBe(page('city 4'));
    expect(state.messages.slice(0, 2)).toEqual(conversation(0));
    expect(state.messages).toHaveLength(10);
    expect(pairingIsValid(state.messages)).toBe(true);
    const record = state.prune!.history[0]!;
    expect(record).toMatchObject({
      iteration: 5,
      budget: 2_500,
      removed: 0,
      overBudget: false,
      toolCallIds: expect.arrayContaining(['call_1']),
    });
    expect(record.toolCallIds).not.toContain('call_4');
    expect(record.tokensAfter).toBeLessThanOrEqual(2_500);
    expect(record.condensed).toBeGreaterThan(0);
    expect(ctx.events[0]).toMatchObject({ type: 'context_pruned', data: { budget: 2_500 } });
  });

  it('removes whole old tool-call groups when condensing is not enough, keeping pairs valid', async () => {
    const state = makeState({ messages: conversation(6) });
    await prune({ budgetTokens: 1_000 }).execute(state, makeCtx());
    expect(state.prune!.history[0]!.removed).toBeGreaterThan(0);
    expect(pairingIsValid(state.messages)).toBe(true);
    expect(state.messages[0]!.role).toBe('system');
    expect(state.messages[1]).toEqual({ role: 'user', content: 'Compare the three cities.' });
    expect(state.messages.at(-1)!.content).toBe(page('city 6'));
  });

  it('records overBudget when the protected messages alone exceed the budget', async () => {
    const state = makeState({ messages: conversation(1) });
    await prune({ budgetTokens: 50 }).execute(state, makeCtx());
    expect(state.prune!.history[0]).toMatchObject({ overBudget: true });
    expect(state.messages).toHaveLength(4);
  });

  it('defaults to 80% of the model window from the table; an unknown model is taken to have 128,000 tokens', async () => {
    expect(contextWindowFor('gpt-4o-2024-08-06')).toBe(128_000);
    expect(contextWindowFor('llama3.1:8b', { 'llama3.1': 4096 })).toBe(4096);
    expect(contextWindowFor('mystery-model')).toBe(unknownModelWindow);
    expect(unknownModelWindow).toBe(128_000);
    expect(prune().limitsInForce('mystery-model')).toEqual({ contextBudget: 102_400 });
    const state = makeState({ messages: conversation(10) });
    await prune().execute(state, makeCtx({ deps: { model: new ScriptedModel([], { modelName: 'gpt-4' }) } }));
    expect(state.prune!.history[0]!.budget).toBe(Math.floor(8192 * 0.8));
    const small = makeState({ messages: conversation(2) });
    await prune({ contextWindows: { tiny: 1_000 }, reserveOutputTokens: 400 }).execute(
      small,
      makeCtx({ deps: { model: new ScriptedModel([], { modelName: 'tiny' }) } }),
    );
    expect(small.prune!.history[0]!.budget).toBe(600);
  });

  it('validates its options', () => {
    expect(() => prune({ budgetTokens: 0 })).toThrow(expect.objectContaining({ code: 'config' }));
    expect(() => prune({ contextWindows: { x: -1 } })).toThrow(
      'the context window of "x" must be a positive whole number',
    );
  });
});
