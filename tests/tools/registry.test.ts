// ToolRegistry: unique names, definitions, with(), only() as a permission boundary, and the wrapCall seam.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolCall } from '../../src/model/types.js';

const named = (name: string) =>
  defineTool({ name, description: `The ${name} tool.`, parameters: z.object({}), execute: () => `${name} ran` });
const call = (name: string, id = 'c1'): ToolCall => ({ id, name, arguments: '{}' });

describe('ToolRegistry', () => {
  it('refuses two tools with the same name', () => {
    expect(() => new ToolRegistry([named('a'), named('b'), named('a')])).toThrow(
      expect.objectContaining({ code: 'tool' }),
    );
  });

  it('lists definitions for the model in registration order', () => {
    const registry = new ToolRegistry([named('b'), named('a')]);
    expect(registry.definitions().map((definition) => definition.name)).toEqual(['b', 'a']);
    expect(registry.names).toEqual(['b', 'a']);
  });

  it('refuses invalid options', () => {
    expect(() => new ToolRegistry([], { concurrency: 0 })).toThrow(RangeError);
    expect(() => new ToolRegistry([], { maxOutputChars: 1.5 })).toThrow(RangeError);
    expect(() => new ToolRegistry([], { timeoutsMs: { a: -1 } })).toThrow(RangeError);
  });

  it('only() restricts which tools can run, and refuses unregistered names', async () => {
    const full = new ToolRegistry([named('read'), named('write')]);
    const readOnly = full.only(['read']);
    expect(readOnly.definitions().map((definition) => definition.name)).toEqual(['read']);
    expect(await readOnly.execute(call('read'))).toMatchObject({ ok: true, content: 'read ran' });
    expect(await readOnly.execute(call('write'))).toMatchObject({ ok: false, error: { kind: 'unknown_tool' } });
    expect(() => full.only(['read', 'admin'])).toThrow(/admin/);
    expect(full.names).toEqual(['read', 'write']);
  });

  it('with() returns a new registry with changed options; the original keeps its own', async () => {
    const base = new ToolRegistry([named('a')], { maxOutputChars: 100 });
    const changed = base.with({ concurrency: 2 });
    expect(changed.options).toMatchObject({ maxOutputChars: 100, concurrency: 2 });
    expect(base.options.concurrency).toBeUndefined();
    expect(changed.names).toEqual(['a']);
  });

  it('wrapCall runs around each single call, including unknown ones', async () => {
    const seen: string[] = [];
    const registry = new ToolRegistry([named('a')]).with({
      wrapCall: async (toolCall, execute) => {
        seen.push(`open ${toolCall.id}`);
        const result = await execute();
        seen.push(`close ${toolCall.id} ${result.ok}`);
        return result;
      },
    });
    await registry.executeAll([call('a', 'c1'), call('nope', 'c2')]);
    expect(seen.sort()).toEqual(['close c1 true', 'close c2 false', 'open c1', 'open c2']);
  });

  it('a wrapCall that throws still yields a result', async () => {
    const registry = new ToolRegistry([named('a')], {
      wrapCall: async () => {
        throw new Error('tracer broke');
      },
    });
    expect(await registry.execute(call('a'))).toMatchObject({
      ok: false,
      error: { kind: 'failed', message: expect.stringContaining('tracer broke') },
    });
    const throwsAtOnce = new ToolRegistry([named('a')], {
      wrapCall: () => {
        throw new Error('threw before any promise');
      },
    });
    expect(await throwsAtOnce.execute(call('a'))).toMatchObject({
      ok: false,
      error: { kind: 'failed', message: expect.stringContaining('threw before any promise') },
    });
  });
});
