// The fault matrix's one assertion: every case, whatever broke, ends as its row says, in time, with finalize run once,
// a non-empty answer where one is due and no unhandled rejection.
import { expect } from 'vitest';
import { definePipeline, type Pipeline } from '../../src/engine/pipeline.js';
import { runPipeline, type RunOptions, type RunResult } from '../../src/engine/runner.js';
import type { RunStatus } from '../../src/engine/state.js';
import type { ChatModel } from '../../src/model/types.js';
import { PROMPTLY_MS } from '../support/helpers.js';

/** What a row expects of its run. */
export interface Expected {
  status: RunStatus;
  kind: string | RegExp;
  /** The stage named in stopReason, when the row cares. */
  stage?: string | null;
  message?: RegExp;
  /** Whether the run must end with a non-empty answer (default: true; a finalize zone writes one on every exit). */
  answer?: boolean | RegExp;
  /**
   * Milliseconds the run takes on a quiet machine, from start to resolution. The check allows PROMPTLY_MS on top for a
   * loaded one: every row's failure mode (a hang, a 40 s retry wait, a model's own 10 s timeout) is longer still.
   */
  boundMs: number;
}

const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

/** Runs one case and checks everything every case must hold. */
export async function runCase(
  pipeline: Pipeline,
  task: string,
  options: RunOptions,
  expected: Expected,
): Promise<RunResult> {
  const before = unhandled.length;
  const started = performance.now();
  const result = await runPipeline(pipeline, { task }, options);
  const elapsedMs = performance.now() - started;
  // Let any stray promise of the run settle, so a late rejection is seen here rather than in a later case.
  await new Promise((resolve) => setTimeout(resolve, 20));
  checkOutcome(result, expected);
  const boundMs = expected.boundMs + PROMPTLY_MS;
  expect(elapsedMs, `the run took ${Math.round(elapsedMs)} ms, its bound is ${boundMs} ms`).toBeLessThan(boundMs);
  expect(unhandled.slice(before), 'unhandled rejections during the case').toEqual([]);
  return result;
}

/** Status, stop kind, partial (true exactly when the run did not complete), finalize once, the answer. */
export function checkOutcome(result: RunResult, expected: Expected): void {
  expect(result.status, `status (stop reason: ${JSON.stringify(result.stopReason)})`).toBe(expected.status);
  if (typeof expected.kind === 'string') expect(result.stopReason.kind).toBe(expected.kind);
  else expect(result.stopReason.kind).toMatch(expected.kind);
  if (expected.stage !== undefined) expect(result.stopReason.stage).toBe(expected.stage);
  if (expected.message !== undefined) expect(result.stopReason.message).toMatch(expected.message);
  if (expected.status !== 'completed') expect(result.partial).toBe(true);
  for (const stage of result.stages.filter((entry) => entry.zone === 'finalize')) {
    expect(stage.calls, `finalize stage ${stage.name} ran ${stage.calls} times`).toBe(1);
  }
  const answer = expected.answer ?? true;
  if (answer === false) return;
  expect(typeof result.answer, 'the answer').toBe('string');
  expect(result.answer!.trim()).not.toBe('');
  if (answer instanceof RegExp) expect(result.answer).toMatch(answer);
}

/** The same pipeline with its finalize zone untouched and one stage added at the end of a zone. */
export function withStage(
  pipeline: Pipeline,
  zone: 'setup' | 'iteration' | 'finalize',
  stage: Pipeline['setup'][number],
): Pipeline {
  return definePipeline({ ...pipeline, [zone]: [...pipeline[zone], stage] });
}

/** A chat model whose chat() is the adapter's streamed path, so streamed replies go through whole runs. */
export function streamed(model: ChatModel & Required<Pick<ChatModel, 'chatStream'>>): ChatModel {
  return {
    provider: model.provider,
    modelName: model.modelName,
    chat: (request, signal) => model.chatStream(request, () => {}, signal),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
