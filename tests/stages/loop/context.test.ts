import { describe, expect, it } from 'vitest';
import { context } from '../../../stages/loop/context.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { testTools } from '../../support/stage-tools.js';

describe('context stage', () => {
  it('renders the system prompt from instructions, tools and facts, and starts messages with the task', async () => {
    const state = makeState({ task: 'What is 2 + 2?' });
    state.input.options = { facts: ['The user prefers short answers.', 3] };
    const ctx = makeCtx({ deps: { tools: testTools() }, zone: 'setup' });
    const signal = await context({ instructions: 'Be exact.', facts: ['Numbers are decimal.'] }).execute(state, ctx);

    expect(signal).toBeUndefined();
    const system = state.context!.systemPrompt;
    expect(system.startsWith('Be exact.')).toBe(true);
    expect(system).toContain('- calculator: Evaluates an arithmetic expression');
    expect(system).toContain('- lookup: Looks a key up');
    expect(system).toContain('- Numbers are decimal.\n- The user prefers short answers.');
    expect(state.context).toMatchObject({
      tools: ['calculator', 'lookup'],
      facts: ['Numbers are decimal.', 'The user prefers short answers.'],
    });
    expect(state.messages).toEqual([
      { role: 'system', content: system },
      { role: 'user', content: 'What is 2 + 2?' },
    ]);
    expect(ctx.events.map((event) => [event.type, event.data])).toEqual([
      ['context_rendered', { tools: ['calculator', 'lookup'], facts: 2 }],
    ]);
  });

  it('leaves out the tool and fact sections when there are none, and replaces earlier messages', async () => {
    const state = makeState({ task: 'hello', messages: [{ role: 'user', content: 'stale' }] });
    await context().execute(state, makeCtx({ zone: 'setup' }));
    expect(state.messages).toHaveLength(2);
    expect(state.messages[0]!.content).not.toMatch(/Tools you can call|Facts/);
    expect(state.messages[1]).toEqual({ role: 'user', content: 'hello' });
  });

  it('keeps no per-run data in the stage: two states get their own slots', async () => {
    const stage = context({ facts: ['shared fact'] });
    const first = makeState({ task: 'one' });
    const second = makeState({ task: 'two' });
    second.input.options = { facts: ['only for two'] };
    await stage.execute(first, makeCtx());
    await stage.execute(second, makeCtx());
    expect(first.context!.facts).toEqual(['shared fact']);
    expect(second.context!.facts).toEqual(['shared fact', 'only for two']);
  });

  it('runs with the same tools share one rendered prompt; other tools, a changed list or own facts get their own', async () => {
    const stage = context();
    const tools = testTools();
    const first = makeState({ task: 'one' });
    const second = makeState({ task: 'two' });
    await stage.execute(first, makeCtx({ deps: { tools } }));
    await stage.execute(second, makeCtx({ deps: { tools } }));
    expect(second.context!.systemPrompt).toBe(first.context!.systemPrompt);
    expect(second.context!.tools).not.toBe(first.context!.tools);

    const fewer = makeState({ task: 'three' });
    await stage.execute(fewer, makeCtx({ deps: { tools: tools.only(['lookup']) } }));
    expect(fewer.context!.systemPrompt).not.toContain('- calculator');
    expect(fewer.context!.tools).toEqual(['lookup']);

    // A tool box that changes its list in place is noticed.
    const list = [...tools.definitions()];
    const changing = { definitions: () => list, executeAll: tools.executeAll.bind(tools) };
    const before = makeState({ task: 'four' });
    await stage.execute(before, makeCtx({ deps: { tools: changing } }));
    list.pop();
    const after = makeState({ task: 'five' });
    await stage.execute(after, makeCtx({ deps: { tools: changing } }));
    expect(before.context!.tools).toEqual(['calculator', 'lookup']);
    expect(after.context!.tools).toEqual(['calculator']);

    const withFacts = makeState({ task: 'six' });
    withFacts.input.options = { facts: ['only for six'] };
    await stage.execute(withFacts, makeCtx({ deps: { tools } }));
    const plain = makeState({ task: 'seven' });
    await stage.execute(plain, makeCtx({ deps: { tools } }));
    expect(withFacts.context!.systemPrompt).toContain('only for six');
    expect(plain.context!.systemPrompt).not.toContain('only for six');
  });
});
