// The executor through the registry: every failure mode resolves to a ToolResult of the right kind.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { EMPTY_RESULT_CONTENT } from '../../src/tools/executor.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { ToolFailure } from '../../src/tools/tool-failure.js';
import type { ToolResult } from '../../src/engine/tool-port.js';
import { PROMPTLY_MS } from '../support/helpers.js';

const call = (name: string, args: string | object, id = 'call-1') => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

const lookup = defineTool({
  name: 'lookup_order',
  description: 'Find one order by id.',
  parameters: z.strictObject({ id: z.string().regex(/^\d+$/), status: z.enum(['open', 'shipped']).optional() }),
  async execute(args) {
    return `order ${args.id} is ${args.status ?? 'open'}`;
  },
});

function errorOf(result: ToolResult) {
  if (result.ok) throw new Error(`expected an error, got ok: ${result.content}`);
  return result.error;
}

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

describe('tool failures', () => {
  it('keeps the message of a tool that throws', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'd',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const error = errorOf(await new ToolRegistry([broken]).execute(call('broken', {})));
    expect(error).toMatchObject({ kind: 'failed', retryable: false });
    expect(error.message).toContain('disk on fire');
  });

  it('lets a tool choose kind and retryability with ToolFailure', async () => {
    const flaky = defineTool({
      name: 'flaky',
      description: 'd',
      parameters: z.object({}),
      execute: async () => {
        throw new ToolFailure('upstream busy', { retryable: true });
      },
    });
    expect(errorOf(await new ToolRegistry([flaky]).execute(call('flaky', {})))).toMatchObject({
      kind: 'failed',
      retryable: true,
      message: 'Tool "flaky" failed: upstream busy',
    });
  });

  it('stops a tool that hangs past its timeout and aborts its signal', async () => {
    let seenReason: unknown;
    const hang = defineTool({
      name: 'hang',
      description: 'd',
      parameters: z.object({}),
      timeoutMs: 100,
      execute: (_args, ctx) =>
        new Promise<string>((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => {
            seenReason = ctx.signal.reason;
            reject(ctx.signal.reason);
          }),
        ),
    });
    const started = Date.now();
    const error = errorOf(await new ToolRegistry([hang]).execute(call('hang', {})));
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(PROMPTLY_MS);
    expect((seenReason as DOMException).name).toBe('TimeoutError');
  });

  it('abandons a tool that ignores its signal, at the registry timeout', async () => {
    const deaf = defineTool({
      name: 'deaf',
      description: 'd',
      parameters: z.object({}),
      execute: () => new Promise<string>(() => {}),
    });
    const registry = new ToolRegistry([deaf], { defaultTimeoutMs: 5_000, timeoutsMs: { deaf: 50 } });
    expect(errorOf(await registry.execute(call('deaf', {}))).kind).toBe('timeout');
  });

  it('stops a tool when the run signal aborts', async () => {
    let toolSawAbort = false;
    const slow = defineTool({
      name: 'slow',
      description: 'd',
      parameters: z.object({}),
      execute: (_args, ctx) =>
        new Promise<string>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            toolSawAbort = true;
            resolve('too late');
          });
          started();
        }),
    });
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const controller = new AbortController();
    const pending = new ToolRegistry([slow]).execute(call('slow', {}), controller.signal);
    // Aborted while the tool runs.
    await running;
    controller.abort();
    const error = errorOf(await pending);
    expect(error).toMatchObject({ kind: 'aborted', retryable: false });
    expect(toolSawAbort).toBe(true);
  });

  it('gives a tool one signal for the whole call, aborted with a TimeoutError even when read after the timeout', async () => {
    const seen: AbortSignal[] = [];
    let ended: () => void = () => undefined;
    const toolEnded = new Promise<void>((resolve) => (ended = resolve));
    const late = defineTool({
      name: 'late',
      description: 'd',
      parameters: z.object({}),
      timeoutMs: 20,
      async execute(_args, ctx) {
        seen.push(ctx.signal);
        // Reads it again once the timeout has fired.
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        seen.push(ctx.signal);
        ended();
        return 'late';
      },
    });
    expect(errorOf(await new ToolRegistry([late]).execute(call('late', {}))).kind).toBe('timeout');
    // Waits for the tool's own end, not for a pause long enough.
    await toolEnded;
    expect(seen).toHaveLength(2);
    expect(seen[1]).toBe(seen[0]);
    expect(seen[0]!.aborted).toBe(true);
    expect((seen[0]!.reason as DOMException).name).toBe('TimeoutError');
  });

  it('aborts the signal of a tool that first reads it after the run was cancelled', async () => {
    let seen: AbortSignal | undefined;
    let ended: () => void = () => undefined;
    const toolEnded = new Promise<void>((resolve) => (ended = resolve));
    const controller = new AbortController();
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const cancelled = new Promise((resolve) => controller.signal.addEventListener('abort', resolve, { once: true }));
    const late = defineTool({
      name: 'late',
      description: 'd',
      parameters: z.object({}),
      async execute(_args, ctx) {
        started();
        // First reads its signal after the cancel (it learns of it from the caller's own signal here).
        await cancelled;
        seen = ctx.signal;
        ended();
        return 'late';
      },
    });
    const pending = new ToolRegistry([late]).execute(call('late', {}), controller.signal);
    await running;
    controller.abort(new Error('user cancelled'));
    expect(errorOf(await pending).kind).toBe('aborted');
    await toolEnded;
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as Error).message).toBe('user cancelled');
  });

  it('lets a tool spread or destructure its context, as a plain object', async () => {
    let spread: { signal?: AbortSignal } = {};
    const tool = defineTool({
      name: 'spreads',
      description: 'd',
      parameters: z.object({}),
      timeoutMs: 20,
      execute: (_args, ctx) => {
        spread = { ...ctx };
        const { signal } = ctx;
        return new Promise<string>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    });
    expect(errorOf(await new ToolRegistry([tool]).execute(call('spreads', {}))).kind).toBe('timeout');
    expect(Object.keys(spread)).toEqual(['callId', 'signal']);
    expect(spread.signal?.aborted).toBe(true);
  });

  it('validates a schema with an asynchronous check, on the first call and on later ones', async () => {
    let asyncChecks = 0;
    const reserved = defineTool({
      name: 'reserve',
      description: 'Reserves a free seat.',
      parameters: z.object({
        seat: z.string().refine(async (seat) => (asyncChecks++, seat !== 'taken'), 'that seat is taken'),
      }),
      execute: (args) => `reserved ${args.seat}`,
    });
    const tools = new ToolRegistry([reserved]);
    expect(await tools.execute(call('reserve', { seat: '12A' }))).toMatchObject({ ok: true, content: 'reserved 12A' });
    const refused = errorOf(await tools.execute(call('reserve', { seat: 'taken' })));
    expect(refused.kind).toBe('invalid_arguments');
    expect(refused.message).toContain('that seat is taken');
    expect(errorOf(await tools.execute(call('reserve', { seat: 7 }))).kind).toBe('invalid_arguments');
    // The first call found the check asynchronous (it ran twice then); later calls run it once.
    expect(asyncChecks).toBe(3);
  });

  it('does not start a tool when the signal aborts while its arguments are validated', async () => {
    let started = false;
    const controller = new AbortController();
    const checked = z.object({
      id: z.string().refine(async () => {
        controller.abort();
        return true;
      }),
    });
    const tool = defineTool({
      name: 'tool',
      description: 'd',
      parameters: checked,
      execute: () => {
        started = true;
        return 'x';
      },
    });
    const result = await new ToolRegistry([tool]).execute(call('tool', { id: '1' }), controller.signal);
    expect(errorOf(result).kind).toBe('aborted');
    expect(started).toBe(false);
  });

  it('does not start a tool when the signal is already aborted', async () => {
    let started = false;
    const tool = defineTool({
      name: 'tool',
      description: 'd',
      parameters: z.object({}),
      execute: () => {
        started = true;
        return 'x';
      },
    });
    const result = await new ToolRegistry([tool]).execute(call('tool', {}), AbortSignal.abort());
    expect(errorOf(result).kind).toBe('aborted');
    expect(started).toBe(false);
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
