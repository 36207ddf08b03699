// think's turn on its own: what a turn settles before asking (notes, plan-step rounds, tools) and the request it builds.
import { describe, expect, it } from 'vitest';
import { think } from '../../../stages/loop/think.js';
import { requestOf, startTurn, type ThinkConfig } from '../../../stages/loop/think-turn.js';
import { turnContext } from '../../../stages/loop/turn-context.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import type { ChatMessage } from '../../../src/model/types.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { testTools } from '../../support/stage-tools.js';
import { planSlotFor } from '../../support/plan-slot.js';

const start = (): ChatMessage[] => [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'What is 6 * 7?' },
];
const config = (changes: Partial<ThinkConfig> = {}): ThinkConfig => ({
  maxTruncationRetries: 3,
  maxRepairs: 2,
  maxStepToolRounds: 2,
  useTools: true,
  keepReasoning: false,
  settings: {},
  context: undefined,
  ...changes,
});

describe("think's turn", () => {
  it('honours nextTurn: notes join the conversation once, withoutTools sends no tools; both are cleared', async () => {
    const model = new ScriptedModel([{ content: 'best effort' }]);
    const state = makeState({
      messages: start(),
      nextTurn: { notes: ['the token budget is 90% spent'], withoutTools: true },
    });
    await think().execute(state, makeCtx({ deps: { model, tools: testTools() } }));
    const request = model.requests[0]!;
    expect(request.tools).toBeUndefined();
    expect(request.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Notes from the runtime:\n- the token budget is 90% spent',
    });
    expect(state.messages.slice(0, -1)).toEqual(request.messages);
    expect(state.nextTurn).toEqual({ notes: [], withoutTools: false });
  });

  it('startTurn counts the rounds of the current plan step and makes its last round tool-less', () => {
    const state = makeState({ messages: start() });
    state.plan = planSlotFor({ steps: [{ description: 'first', status: 'in_progress' }], current: 0 });
    const ctx = makeCtx({ deps: { tools: testTools() } });
    const first = startTurn(state, ctx, config());
    expect(first).toMatchObject({ step: 0, lastRound: false, limit: undefined, repairs: undefined });
    expect(first.tools?.map((tool) => tool.name)).toEqual(['calculator', 'lookup']);
    const second = startTurn(state, ctx, config());
    expect(second).toMatchObject({ step: 0, lastRound: true, tools: undefined });
    expect(state.think).toMatchObject({ step: 0, stepRounds: 2, calls: 0 });
    expect(ctx.events.map((event) => event.type)).toEqual(['step_last_round']);
    expect(state.messages.at(-1)!.content).toMatch(/last round for the current step/);
  });

  it('requestOf sends a copy of the conversation, then the repair exchange, with the tools and settings', () => {
    const state = makeState({ messages: start() });
    const ctx = makeCtx({ deps: { tools: testTools() } });
    const settings = { temperature: 0.2, maxOutputTokens: 100 };
    const turn = startTurn(state, ctx, config({ settings }));
    const request = requestOf(state, config({ settings }), turn);
    expect(request).toMatchObject({ purpose: 'think', temperature: 0.2, maxOutputTokens: 100 });
    expect(request.messages).toEqual(start());
    expect(request.messages).not.toBe(state.messages);
    expect(request.tools).toHaveLength(2);
    turn.repairs = [{ role: 'user', content: 'fix the call' }];
    const repair = requestOf(state, config({ context: turnContext() }), turn);
    expect(repair.purpose).toBe('think_repair');
    expect(repair.messages).toEqual([...start(), { role: 'user', content: 'fix the call' }]);
    expect(state.messages).toEqual(start());
  });
});
