// A retried call in a recorded run (the six-components document: "every transition reproducible from logs"): the
// retries happen inside the call, so the journal holds one intent and one result for it, every attempt sends one
// idempotency key, act reports each failed attempt as tool_retry, and a replay serves the result without running
// any attempt again (the attempts ride on the recorded result).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/react.js';
import { replayRun } from '../../src/durable/replay.js';
import { runPipeline } from '../../src/durable/durable-run.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { ToolFailure } from '../../src/tools/tool-failure.js';
import { useLoopbackServer } from '../support/loopback-model.js';

const loopback = useLoopbackServer();

describe('retries in a recorded run', () => {
  it('six-components "Execution owns retries" and "every transition reproducible from logs": one intent, one key, tool_retry events, replay identical without re-running', async () => {
    const keys: string[] = [];
    const sendInvoice = defineTool({
      name: 'send_invoice',
      description: 'Sends an invoice.',
      parameters: z.object({ to: z.string() }),
      retry: { attempts: 3, backoff: 25 },
      execute: (_args, ctx) => {
        keys.push(ctx.idempotencyKey);
        if (keys.length < 3) throw new ToolFailure('the mail server answered 503', { retryable: true });
        return 'sent';
      },
    });
    const timer = { now: () => 0, sleep: () => Promise.resolve() };
    loopback.server.replyWithToolCalls([{ id: 'c1', name: 'send_invoice', arguments: '{"to":"ada"}' }]);
    loopback.server.replyWith({ content: 'The invoice is sent.' });
    const store = memoryStore();
    const events: RunEvent[] = [];
    const result = await runPipeline(
      reactPipeline(),
      { task: 'Send Ada her invoice.' },
      {
        store,
        runId: 'invoice-run',
        deps: {
          model: loopback.model(),
          tools: new ToolRegistry([sendInvoice], { timer }),
          onEvent: (event) => events.push(event),
        },
      },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'The invoice is sent.' });
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);

    const journal = await store.journal('invoice-run');
    expect(journal.filter((entry) => entry.kind === 'intent')).toHaveLength(1);
    expect(journal.filter((entry) => entry.kind === 'tool')).toHaveLength(1);

    const toolEvents = events.filter((event) => ['tool_call', 'tool_retry', 'tool_result'].includes(event.type));
    expect(toolEvents.map((event) => event.type)).toEqual(['tool_call', 'tool_retry', 'tool_retry', 'tool_result']);
    expect(toolEvents[1]!.data).toEqual({
      id: 'c1',
      name: 'send_invoice',
      attempt: 1,
      error: { kind: 'failed', message: 'Tool "send_invoice" failed: the mail server answered 503' },
      waitMs: 25,
    });

    // The journal holds the attempts on the call's one result: what act reports its tool_retry events from.
    const recorded = journal.find((entry) => entry.kind === 'tool')!.data as {
      results: Array<{ retries?: unknown[] }>;
    };
    expect(recorded.results[0]!.retries).toHaveLength(2);
    const replay = await replayRun(store, 'invoice-run', { pipeline: reactPipeline() });
    expect(replay.identical).toBe(true);
    expect(keys).toHaveLength(3);
  });
});
