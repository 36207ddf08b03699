// Eval cases are streamed to the runner: a dataset given as a CaseStream is read one case at a time as runs start,
// so the runner never holds every case (a counting stream fails this if evaluate read all cases before running them),
// and a JSONL file opened with openDataset is checked whole before any run, then read again case by case.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDataset, type CaseStream } from '../../src/eval/case-stream.js';
import { evaluate } from '../../src/eval/evaluate.js';
import type { EvalCase } from '../../src/eval/graders/types.js';
import { definePipeline } from '../../src/engine/pipeline.js';
import { breakLoop } from '../../src/engine/signal.js';

/** A pipeline that answers at once (no model): the eval's own bookkeeping is what is measured. */
const answering = definePipeline({
  name: 'answer',
  iteration: [{ name: 'answer', execute: (state) => ((state.answer = '4'), breakLoop('completed')) }],
  maxIterations: 1,
});

describe('eval cases streamed', () => {
  it('holds at most the cases of the runs in flight: the stream is never read far ahead of finished runs', async () => {
    const count = 200;
    const concurrency = 3;
    let read = 0;
    let finished = 0;
    let furthestAhead = 0;
    const stream: CaseStream = {
      name: 'counted',
      ids: Array.from({ length: count }, (_, index) => `case-${index}`),
      async *cases() {
        for (let index = 0; index < count; index++) {
          read += 1;
          furthestAhead = Math.max(furthestAhead, read - finished);
          yield { id: `case-${index}`, task: 'What is 2 + 2?', expected: 4 } satisfies EvalCase;
        }
      },
    };
    const result = await evaluate({
      dataset: stream,
      variants: [{ name: 'v', pipeline: answering }],
      concurrency,
      onRun: () => void (finished += 1),
    });
    expect(result.complete).toBe(true);
    expect(result.results.filter((entry) => entry.pass)).toHaveLength(count);
    // The first pass (graders checked before any run) reads every case once; the running pass stays close behind.
    expect(read).toBe(2 * count);
    expect(furthestAhead - count).toBeLessThanOrEqual(concurrency + 1);
  });

  it('openDataset checks a whole JSONL file before any run, naming file:line, and reads it again as asked', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-eval-stream-'));
    try {
      const good = join(folder, 'good.jsonl');
      writeFileSync(
        good,
        ['{"id":"a","task":"1 + 1?","expected":2}', '', '{"id":"b","task":"2 + 2?","expected":4}'].join('\n'),
      );
      const dataset = await openDataset('good.jsonl', folder);
      expect(dataset.ids).toEqual(['a', 'b']);
      const ids: string[] = [];
      for await (const evalCase of dataset.cases()) ids.push(evalCase.id);
      expect(ids).toEqual(['a', 'b']);
      writeFileSync(join(folder, 'bad.jsonl'), '{"id":"a","task":"x"}\n{"id":"a","task":"y"}\n');
      await expect(openDataset('bad.jsonl', folder)).rejects.toThrow(
        /^bad\.jsonl:2: id "a" is used already by bad\.jsonl:1/,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
