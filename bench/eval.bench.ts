// Eval throughput: cases per second at concurrency 1, 8 and 32 with a model that takes 50 ms a call, against a floor
// measured in the same run (the same model called directly, as many at once, no pipeline, no grading, no store).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reactPipeline } from '../pipelines/index.js';
import { sqliteStore } from '../src/entries/durable.js';
import type { ChatModel, ChatResponse } from '../src/index.js';
import { evaluate, type EvalCase } from '../src/entries/eval.js';
import { format, timeMs } from './measure.js';

const modelMs = 50;
const usage = { inputTokens: 40, outputTokens: 8, cachedInputTokens: 0, reasoningTokens: 0, estimated: false };
const slowModel: ChatModel = {
  provider: 'bench',
  modelName: 'bench-50ms',
  chat: () =>
    new Promise<ChatResponse>((resolve) =>
      setTimeout(
        () =>
          resolve({
            content: '6 * 7 = 42',
            toolCalls: [],
            finishReason: 'stop',
            usage,
            model: 'bench-50ms',
            latencyMs: modelMs,
          }),
        modelMs,
      ),
    ),
};

const casesOf = (count: number): EvalCase[] =>
  Array.from({ length: count }, (_, index) => ({ id: `case-${index}`, task: 'What is 6 * 7?', expected: 42 }));

/** The floor: `count` model calls, `concurrency` at a time. */
async function floor(count: number, concurrency: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next++ < count)
      await slowModel.chat({ purpose: 'think', messages: [{ role: 'user', content: 'What is 6 * 7?' }] });
  };
  return timeMs(() => Promise.all(Array.from({ length: concurrency }, worker)));
}

export async function run(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-eval-bench-'));
  console.log(
    `| concurrency | cases | floor cases/s | eval cases/s (no store) | ratio | eval cases/s (SQLite store) | ratio |`,
  );
  console.log(`|---|---|---|---|---|---|---|`);
  try {
    for (const concurrency of [1, 8, 32]) {
      const count = concurrency === 1 ? 40 : concurrency * 12;
      const dataset = casesOf(count);
      const variants = [{ name: 'react', pipeline: reactPipeline(), deps: { model: slowModel } }];
      const floorMs = await floor(count, concurrency);
      const plainMs = await timeMs(() => evaluate({ dataset, variants, concurrency }));
      const store = sqliteStore(join(folder, `eval-${concurrency}.db`));
      const storedMs = await timeMs(async () => {
        const result = await evaluate({ dataset, variants, concurrency, store });
        if (result.summary[0]!.passRate !== 1) throw new Error('the bench eval should pass every case');
      });
      await store.close();
      const rate = (ms: number) => (count * 1000) / ms;
      console.log(
        `| ${concurrency} | ${count} | ${format(rate(floorMs))} | ${format(rate(plainMs))} | ${format(rate(plainMs) / rate(floorMs), 2)} | ${format(rate(storedMs))} | ${format(rate(storedMs) / rate(floorMs), 2)} |`,
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
