import { describe, expect, it } from 'vitest';
import { callsToRun, checkToolCalls, repairMessages } from '../../../stages/loop/tool-call-check.js';
import { emptyUsage, type ChatResponse, type ToolCall, type ToolDefinition } from '../../../src/model/types.js';

const tools: ToolDefinition[] = [{ name: 'calculator', description: 'arithmetic', parameters: {}, strict: false }];
const reply = (toolCalls: ToolCall[], extra: Partial<ChatResponse> = {}): ChatResponse => ({
  content: '',
  toolCalls,
  finishReason: 'tool_calls',
  usage: emptyUsage(),
  model: 'm',
  latencyMs: 0,
  ...extra,
});
const call = (name: string, args: string): ToolCall => ({ id: 'c1', name, arguments: args });

describe('checkToolCalls', () => {
  it('passes calls to offered tools with a JSON object (or no arguments at all)', () => {
    expect(checkToolCalls(reply([call('calculator', '{"expression":"1+1"}'), call('calculator', ' ')]), tools)).toEqual(
      { problems: [], renamed: [] },
    );
  });

  it('names an unknown tool and lists the ones there are', () => {
    expect(checkToolCalls(reply([call('search', '{}')]), tools).problems).toEqual([
      'There is no tool "search". The tools are: calculator.',
    ]);
    expect(checkToolCalls(reply([call('search', '{}')]), []).problems).toEqual([
      'There is no tool "search". The tools are: (none).',
    ]);
  });

  it('renames a call whose only fault is the case of the name, and still checks its arguments', () => {
    const check = checkToolCalls(reply([call(' Calculator', '[1]')]), tools);
    expect(check.renamed).toEqual([call('calculator', '[1]')]);
    expect(check.problems).toEqual([
      'There is no tool " Calculator": tool names are case-sensitive, the tool is "calculator".',
      'The arguments of your call to " Calculator" are an array, not a JSON object: "[1]". Send one JSON object with the tool\'s parameters as keys.',
    ]);
  });

  it("says why arguments are not JSON, and reports the adapter's problem with an Action line first", () => {
    const check = checkToolCalls(
      reply([call('calculator', "{'expression': 1}")], { toolCallProblem: 'The Action line has no JSON.' }),
      tools,
    );
    expect(check.problems[0]).toBe('The Action line has no JSON.');
    expect(check.problems[1]).toMatch(
      /^The arguments of your call to "calculator" are not valid JSON \(.+\): "\{'expression': 1\}"\. Send them as one JSON object/,
    );
  });
});

describe('repairMessages', () => {
  it('shows the model what it wrote and what was wrong, asking for the call again', () => {
    const messages = repairMessages(reply([call('search', '{}')], { content: 'Let me look.' }), [
      'There is no tool "search".',
    ]);
    expect(messages).toEqual([
      { role: 'assistant', content: 'Let me look.\nTool call: search {}' },
      {
        role: 'user',
        content:
          'Your tool call could not be used, so nothing was run:\n- There is no tool "search".\nWrite the tool call again, corrected (or give your final answer if you need no tool).',
      },
    ]);
    expect(repairMessages(reply([]), ['x'])[0]).toEqual({ role: 'assistant', content: '(an empty reply)' });
  });
});

describe('callsToRun', () => {
  const calls: ToolCall[] = [{ id: 'call_1', name: 'search', arguments: '{"q":"a"}' }];

  it('copies the calls, their ids ending in the suffix the plan branch gave the step', () => {
    const copies = callsToRun('_b', 0, calls);
    expect(copies).toEqual([{ id: 'call_1_b', name: 'search', arguments: '{"q":"a"}' }]);
    expect(copies[0]).not.toBe(calls[0]);
  });

  it('keeps the ids without a suffix, or outside a step', () => {
    expect(callsToRun(undefined, 0, calls)[0]!.id).toBe('call_1');
    expect(callsToRun('_b', null, calls)[0]!.id).toBe('call_1');
  });
});
