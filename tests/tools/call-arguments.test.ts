import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import type { ToolCall } from '../../src/model/types.js';
import { CheckedToolCall, parseArguments, takeArguments } from '../../src/tools/call-arguments.js';
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

  it('a checked call hands its value to the executor once, then parses again', () => {
    const value = { a: 1 };
    const checked = new CheckedToolCall('c1', 'add', '{"a":1}', value);
    const taken = takeArguments(checked);
    expect(taken).toEqual({ ok: true, value: { a: 1 } });
    expect(taken.ok && taken.value).toBe(value);
    const again = takeArguments(checked);
    expect(again).toEqual({ ok: true, value: { a: 1 } });
    expect(again.ok && again.value).not.toBe(value);
  });

  it('the value travels with the call only: a plain call, a copy or a changed text parse their own text', () => {
    const value = { b: 1 };
    const checked = new CheckedToolCall('c1', 'add', '{"b":1}', value);
    // A call's JSON, copy and clone are its plain fields, in their usual order.
    expect(JSON.stringify(checked)).toBe('{"id":"c1","name":"add","arguments":"{\\"b\\":1}"}');
    expect(checked).toEqual(call('{"b":1}'));
    const copy = takeArguments({ ...checked });
    expect(copy.ok && copy.value).not.toBe(value);
    expect(takeArguments(structuredClone(checked))).toEqual({ ok: true, value: { b: 1 } });
    expect(takeArguments(call('{"b":1}'))).toEqual({ ok: true, value: { b: 1 } });
    checked.arguments = '{"b":2}';
    expect(takeArguments(checked)).toEqual({ ok: true, value: { b: 2 } });
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
