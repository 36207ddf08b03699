import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { parseArguments } from '../../src/tools/call-arguments.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';

describe('call arguments, parsed where they are used', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads empty text as {} and says why broken text is not JSON', () => {
    expect(parseArguments('  ')).toEqual({ ok: true, value: {} });
    const broken = parseArguments('{"a":');
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.reason).toMatch(/JSON/);
  });

  it("a ReAct turn's check and its executor each parse the call's own text; nothing is kept between calls", async () => {
    const text = '{"a":17,"b":23}';
    const model = new ScriptedModel([{ toolCalls: [{ name: 'add', arguments: text }] }, { content: 'It is 40.' }]);
    const seen: unknown[] = [];
    const add = defineTool({
      name: 'add',
      description: 'Adds.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: (value) => {
        seen.push(value);
        return String(value.a + value.b);
      },
    });
    const parse = vi.spyOn(JSON, 'parse');
    const result = await runPipeline(
      reactPipeline({ guards: false }),
      { task: 'add 17 and 23' },
      { deps: { model, tools: new ToolRegistry([add]) } },
    );
    expect(result.answer).toBe('It is 40.');
    expect(result.state.messages.find((message) => message.role === 'tool')?.content).toBe('40');
    // think's check and the executor: two parses of the same text, two separate values.
    expect(parse.mock.calls.filter(([parsed]) => parsed === text)).toHaveLength(2);
    expect(seen).toEqual([{ a: 17, b: 23 }]);
  });

  it('has no module-level state: the module exports only the parser', async () => {
    const module = await import('../../src/tools/call-arguments.js');
    expect(Object.keys(module)).toEqual(['parseArguments']);
  });
});
