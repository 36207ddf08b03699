// The executor through the registry when a tool fails: throws, timeouts, aborted signals, contexts and slow schemas;
// apart from executor.test.ts (arguments, unknown tools, output) to keep each file short.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { ToolFailure } from '../../src/tools/tool-failure.js';
import { PROMPTLY_MS } from '../support/helpers.js';
import { call, errorOf } from './executor-fixtures.js';

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
    expect(Object.keys(spread)).toEqual(['callId', 'signal', 'idempotencyKey']);
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
