// The context slot as the context stage writes it: the system prompt, the tool names and the facts it was rendered
// from, plain JSON.
import { describe, expect, it } from 'vitest';
import { context } from '../../../stages/loop/context.js';
import type { ContextSlot } from '../../../stages/shared/context-slot.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { testTools } from '../../support/stage-tools.js';

describe('the context slot', () => {
  it('holds what the system prompt was rendered from, and survives a JSON round trip', async () => {
    const state = makeState();
    await context({ facts: ['The user lives in Lyon.'] }).execute(state, makeCtx({ deps: { tools: testTools() } }));
    const slot: ContextSlot = state.context!;
    expect(slot.tools).toEqual(
      testTools()
        .definitions()
        .map((definition) => definition.name),
    );
    expect(slot.facts).toEqual(['The user lives in Lyon.']);
    expect(slot.systemPrompt).toContain('The user lives in Lyon.');
    expect(JSON.parse(JSON.stringify(slot))).toEqual(slot);
  });
});
