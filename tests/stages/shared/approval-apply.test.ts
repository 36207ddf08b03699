import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyDecision } from '../../../stages/shared/approval-apply.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import type { ToolCall } from '../../../src/model/types.js';
import { makeState } from '../../support/helpers.js';

const transfer = defineTool({
  name: 'transfer',
  description: 'moves money',
  parameters: z.strictObject({ amount: z.number().max(100) }),
  execute: ({ amount }) => `moved ${amount}`,
});
const call: ToolCall = { id: 'c1', name: 'transfer', arguments: '{"amount":50}' };

function turn() {
  const state = makeState();
  state.turn = { toolCalls: [call, { id: 'c2', name: 'transfer', arguments: '{"amount":1}' }], results: [] };
  return state;
}
const refusal = (state: ReturnType<typeof turn>) =>
  state.turn.results.map(({ call: refused, result }) => [
    refused.id,
    !result.ok && result.error.kind,
    !result.ok && result.error.message,
  ]);

describe('applyDecision', () => {
  it('an approval changes nothing', async () => {
    const state = turn();
    await applyDecision(state, call, { approve: true }, transfer);
    expect(state.turn.results).toEqual([]);
    expect(state.turn.toolCalls[0]).toEqual(call);
  });

  it("a rejection is a refused result, with the reviewer's message when there is one", async () => {
    const state = turn();
    await applyDecision(state, call, { approve: false, message: 'too much' }, transfer);
    await applyDecision(state, { ...call, id: 'c2' }, { approve: false, message: '  ' }, transfer);
    expect(refusal(state)).toEqual([
      ['c1', 'refused', 'Not run: the person reviewing tool calls rejected this call: too much'],
      ['c2', 'refused', 'Not run: the person reviewing tool calls rejected this call.'],
    ]);
  });

  it("a valid edit replaces that call's arguments only, given as an object or as text", async () => {
    const state = turn();
    await applyDecision(state, call, { approve: true, arguments: { amount: 20 } }, transfer);
    expect(state.turn.toolCalls.map((each) => each.arguments)).toEqual(['{"amount":20}', '{"amount":1}']);
    await applyDecision(state, call, { approve: true, arguments: '{"amount":30}' }, undefined);
    expect(state.turn.toolCalls[0]!.arguments).toBe('{"amount":30}');
    expect(state.turn.results).toEqual([]);
  });

  it("an edit that is not JSON, or breaks the tool's schema, is refused and the call keeps its arguments", async () => {
    const state = turn();
    await applyDecision(state, call, { approve: true, arguments: '{amount: 20' }, transfer);
    await applyDecision(state, call, { approve: true, arguments: { amount: 500 } }, transfer);
    const refused = refusal(state);
    expect(refused[0]).toEqual([
      'c1',
      'refused',
      'Not run: the edited arguments for transfer are not valid JSON: {amount: 20',
    ]);
    expect(refused[1]![2]).toMatch(/^Not run: the edited arguments for transfer are invalid:\n.*amount/s);
    expect(state.turn.toolCalls[0]).toEqual(call);
  });
});
