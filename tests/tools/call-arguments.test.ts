import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import type { ToolCall } from '../../src/model/types.js';
import { checkArguments, moveCheckedArguments, parseArguments, takeArguments } from '../../src/tools/call-arguments.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';

const call = (text: string): ToolCall => ({ id: 'c1', name: 'add', arguments: text });

describe('call arguments parsed once', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads empty text as {} and says why broken text is not JSON', () => {
    expect(parseArguments('  ')).toEqual({ ok: true, value: {} });
    const broken = parseArguments('{"a":');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.reason).toMatch(/JSON/);
  });

  it('hands the checked value to the same call once, then parses again', () => {
    const checked = call('{"a":1}');
    const first = checkArguments(checked);
    const taken = takeArguments(checked);
    expect(taken).toEqual({ ok: true, value: { a: 1 } });
    expect(first.ok && taken.ok && taken.value).toBe(first.ok && first.value);
    const again = takeArguments(checked);
    expect(again).toEqual({ ok: true, value: { a: 1 } });
    expect(again.ok && taken.ok && again.value).not.toBe(taken.ok && taken.value);
  });

  it('parses the text anew when the call, its copy or its text is not the one checked', () => {
    const checked = call('{"a":1}');
    checkArguments(checked);
    expect(takeArguments(call('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } });
    checked.arguments = '{"a":2}';
    expect(takeArguments(checked)).toEqual({ ok: true, value: { a: 2 } });

    const original = call('{"b":1}');
    const first = checkArguments(original);
    const copy = { ...original };
    moveCheckedArguments(original, copy);
    const taken = takeArguments(copy);
    expect(taken.ok && first.ok && taken.value).toBe(first.ok && first.value);
    const changed = call('{"b":1}');
    checkArguments(changed);
    moveCheckedArguments(changed, { ...changed, arguments: '{"b":3}' });
    expect(takeArguments(changed)).toEqual({ ok: true, value: { b: 1 } });
  });

  it('a ReAct turn parses the call\'s arguments once, between think\'s check and the executor', async () => {
    const text = '{"a":17,"b":23}';
    const model = new ScriptedModel([{ toolCalls: [{ name: 'add', arguments: text }] }, { content: 'It is 40.' }]);
    const add = defineTool({ name: 'add', description: 'Adds.', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => String(a + b) });
    const parse = vi.spyOn(JSON, 'parse');
    const result = await runPipeline(reactPipeline({ guards: false }), { task: 'add 17 and 23' }, { deps: { model, tools: new ToolRegistry([add]) } });
    expect(result.answer).toBe('It is 40.');
    expect(result.state.messages.find((message) => message.role === 'tool')?.content).toBe('40');
    expect(parse.mock.calls.filter(([parsed]) => parsed === text)).toHaveLength(1);
  });
});
