// The model fault matrix's row type, expectations and runner, shared by model-faults.test.ts and model-faults-bodies.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline, reactPipeline } from '../../pipelines/index.js';
import type { OpenAIChatModelOptions } from '../../src/model/openai-model.js';
import { applyGuards } from '../../pipelines/guards.js';
import type { GuardSettings } from '../../src/engine/guard-settings.js';
import type { ChatServer } from '../support/chat-server.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';
import { runCase, streamed, type Expected } from './harness.js';

export const calc = (expression: string, id: string) => ({
  name: 'calculator',
  arguments: JSON.stringify({ expression }),
  id,
});

export interface Row {
  name: string;
  arrange: (server: ChatServer) => void;
  model?: Partial<OpenAIChatModelOptions>;
  /** Run through chatStream instead of chat. */
  stream?: boolean;
  guards?: GuardSettings;
  expected: Expected;
  /** Requests the server must have seen (a summary call that must not be made, say). */
  requests?: number;
  /** The caller cancels the run this many ms after it starts. */
  cancelAfterMs?: number;
  /** Plan-Execute-Replan instead of ReAct. */
  planned?: boolean;
}

export const failed = (kind: RegExp, boundMs = 3_000): Expected => ({
  status: 'failed',
  kind: 'error',
  stage: 'think',
  message: kind,
  boundMs,
});
export const completed = (answer: RegExp, boundMs = 3_000): Expected => ({
  status: 'completed',
  kind: 'completed',
  answer,
  boundMs,
});

/** The matrix over `rows`, each a whole run against a real Chat Completions server on 127.0.0.1. */
export function modelFaultMatrix(rows: Row[]): void {
  const loopback = useLoopbackServer();
  describe('fault matrix: the model', () => {
    it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
      row.arrange(loopback.server);
      const adapter = loopback.model({ maxRetries: 0, timeoutMs: 2_000, ...row.model });
      const model = row.stream ? streamed(adapter) : adapter;
      const base = row.planned ? planExecuteReplanPipeline() : reactPipeline();
      const pipeline = row.guards ? applyGuards(base, row.guards, { modelName: 'test-model' }) : base;
      const signal = row.cancelAfterMs === undefined ? {} : { signal: AbortSignal.timeout(row.cancelAfterMs) };
      await runCase(pipeline, 'What is 17 * 23 + 4?', { deps: { model, tools: testTools() }, ...signal }, row.expected);
      if (row.requests !== undefined) expect(loopback.server.requests).toHaveLength(row.requests);
    });
  });
}
