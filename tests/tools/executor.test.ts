// The executor through the registry: every failure mode resolves to a ToolResult of the right kind.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { EMPTY_RESULT_CONTENT } from '../../src/tools/executor.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { call, errorOf } from './executor-fixtures.js';

const lookup = defineTool({
  name: 'lookup_order',
  description: 'Find one order by id.',
  parameters: z.strictObject({ id: z.string().regex(/^\d+$/), status: z.enum(['open', 'shipped']).optional() }),
  async execute(args) {
    return `order ${args.id} is ${args.status ?? 'open'}`;
  },
});

describe('arguments', () => {
  const tools = new ToolRegistry([lookup]);

  it('runs a valid call', async () => {
    const result = await tools.execute(call('lookup_order', { id: '42', status: 'shipped' }));
    expect(result).toMatchObject({ ok: true, content: 'order 42 is shipped' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('names unknown keys', async () => {
    const error = errorOf(await tools.execute(call('lookup_order', { id: '42', colour: 'red', size: 2 })));
    expect(error.kind).toBe('invalid_arguments');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('"colour"');
    expect(error.message).toContain('"size"');
  });

  it('reports wrong types and failed checks with their paths', async () => {
    const error = errorOf(await tools.execute(call('lookup_order', { id: 42, status: 'lost' })));
    expect(error.kind).toBe('invalid_arguments');
    expect(error.message).toMatch(/expected string, received number[\s\S]*at id/);
    expect(error.message).toMatch(/at status/);
  });

  it('rejects argument text that is not JSON', async () => {
    const error = errorOf(await tools.execute(call('lookup_order', '{"id": "42"')));
    expect(error.kind).toBe('invalid_arguments');
    expect(error.message).toMatch(/not valid JSON/);
  });

  it('rejects JSON that is not an object', async () => {
    expect(errorOf(await tools.execute(call('lookup_order', '[1,2]'))).kind).toBe('invalid_arguments');
  });

  it('treats empty argument text as {}', async () => {
    const ping = defineTool({ name: 'ping', description: 'Ping.', parameters: z.object({}), execute: () => 'pong' });
    expect(await new ToolRegistry([ping]).execute(call('ping', ''))).toMatchObject({ ok: true, content: 'pong' });
  });
});

describe('unknown tools', () => {
  it('cannot run, and the message lists what can', async () => {
    const error = errorOf(await new ToolRegistry([lookup]).execute(call('delete_everything', {})));
    expect(error).toMatchObject({ kind: 'unknown_tool', retryable: false });
    expect(error.message).toContain('"delete_everything"');
    expect(error.message).toContain('lookup_order');
  });
});

describe('output', () => {
  const big = defineTool({
    name: 'big',
    description: 'd',
    parameters: z.object({}),
    execute: () => 'x'.repeat(1_000_000),
  });

  it('cuts 1 MB of output at the cap with a visible marker', async () => {
    const result = await new ToolRegistry([big]).execute(call('big', {}));
    if (!result.ok) throw new Error('expected ok');
    expect(result.truncated).toBe(true);
    expect(result.content.startsWith('x'.repeat(16_000))).toBe(true);
    expect(result.content).toMatch(/\[output truncated: showing the first 16000 of 1000000 characters\]$/);
    expect(result.content.length).toBeLessThan(16_100);
  });

  it('reports output_too_large when the registry is set to refuse large output', async () => {
    const registry = new ToolRegistry([big]).with({ oversizedOutput: 'error', maxOutputChars: 1_000 });
    expect(errorOf(await registry.execute(call('big', {})))).toMatchObject({
      kind: 'output_too_large',
      retryable: false,
    });
  });

  it.each([
    ['empty text', ''],
    ['whitespace', '  \n'],
    ['undefined', undefined],
    ['null', null],
  ])('reports %s as an empty result', async (_label, value) => {
    const nothing = defineTool({ name: 'nothing', description: 'd', parameters: z.object({}), execute: () => value });
    expect(await new ToolRegistry([nothing]).execute(call('nothing', {}))).toMatchObject({
      ok: true,
      empty: true,
      content: EMPTY_RESULT_CONTENT,
    });
  });

  it('serialises JSON values and fails on values that cannot be serialised', async () => {
    const json = defineTool({
      name: 'json',
      description: 'd',
      parameters: z.object({}),
      execute: () => ({ total: 3, items: ['a'] }),
    });
    expect(await new ToolRegistry([json]).execute(call('json', {}))).toMatchObject({
      ok: true,
      content: '{"total":3,"items":["a"]}',
    });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const bad = defineTool({ name: 'bad', description: 'd', parameters: z.object({}), execute: () => circular });
    expect(errorOf(await new ToolRegistry([bad]).execute(call('bad', {}))).kind).toBe('failed');
    const returnsFunction = defineTool({
      name: 'fn',
      description: 'd',
      parameters: z.object({}),
      execute: () => () => 1,
    });
    expect(errorOf(await new ToolRegistry([returnsFunction]).execute(call('fn', {})))).toMatchObject({
      kind: 'failed',
      message: expect.stringContaining('function'),
    });
  });
});
