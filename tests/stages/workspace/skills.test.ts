// Skills (agentskills.io format): a load_skill call that succeeded is reported as skill_loaded and kept in the slot.
import { describe, expect, it } from 'vitest';
import { skills } from '../../../stages/workspace/skills.js';
import { makeCtx, makeState } from '../../support/helpers.js';

describe('skills stage', () => {
  it('reports each skill loaded this turn once in the slot, and ignores failed loads and other tools', async () => {
    const state = makeState({ task: 't' });
    const ok = (content: string) => ({ ok: true as const, content, durationMs: 1 });
    state.turn.results = [
      { call: { id: 'a', name: 'load_skill', arguments: '{"name":"vat-rates"}' }, result: ok('Skill "vat-rates"') },
      { call: { id: 'b', name: 'calculator', arguments: '{"expression":"1+1"}' }, result: ok('2') },
      {
        call: { id: 'c', name: 'load_skill', arguments: '{"name":"nope"}' },
        result: {
          ok: false,
          error: { kind: 'failed', message: 'no skill named "nope"', retryable: false },
          durationMs: 1,
        },
      },
    ];
    const ctx = makeCtx();
    await skills().execute(state, ctx);
    await skills().execute(state, ctx);
    expect(ctx.events.map((event) => [event.type, event.data])).toEqual([
      ['skill_loaded', { name: 'vat-rates' }],
      ['skill_loaded', { name: 'vat-rates' }],
    ]);
    expect(state.workspace?.loaded).toEqual(['vat-rates']);
  });
});
