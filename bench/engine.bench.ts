// Engine overhead: ns per stage dispatch, and memory per in-flight run under 10,000 concurrent runs.
import { breakLoop, definePipeline, runPipeline, type Stage } from '../src/index.js';
import { collectGarbage, format, median, peakMemory, timeMs } from './measure.js';

function trivial(name: string): Stage {
  return { name, async execute() {} };
}

async function dispatchCost(): Promise<void> {
  const iterations = 100_000;
  const last: Stage = {
    name: 'stage-8',
    async execute(state) {
      if (state.iteration === iterations) return breakLoop('done');
    },
  };
  const stages = [...Array.from({ length: 7 }, (_, index) => trivial(`stage-${index + 1}`)), last];
  const pipeline = definePipeline({ name: 'dispatch', iteration: stages, maxIterations: iterations });
  const samples: number[] = [];
  for (let round = 0; round < 7; round++) {
    collectGarbage();
    const ms = await timeMs(() => runPipeline(pipeline, { task: 'bench' }));
    samples.push((ms * 1e6) / (iterations * stages.length));
  }
  console.log(
    `runner dispatch: ${format(median(samples), 0)} ns per stage (median of ${samples.length} runs of 8 stages x ${format(iterations, 0)} iterations; target <= 1000 ns)`,
  );
}

async function concurrentRuns(): Promise<void> {
  const runs = 10_000;
  const wait: Stage = { name: 'wait', execute: () => new Promise<void>((resolve) => setTimeout(resolve, 10)) };
  const last: Stage = {
    name: 'stage-5',
    async execute(state) {
      if (state.iteration === 5) return breakLoop('done');
    },
  };
  const pipeline = definePipeline({
    name: 'concurrent',
    iteration: [trivial('stage-1'), wait, trivial('stage-3'), trivial('stage-4'), last],
    maxIterations: 10,
  });
  let retainedBytes = 0;
  const { wallMs, peakHeapBytes, peakRssBytes, baseHeapBytes } = await peakMemory(async () => {
    const all = Promise.all(Array.from({ length: runs }, () => runPipeline(pipeline, { task: 'bench' })));
    // Every run is now parked in its first 10 ms wait: what survives a collection is what a run holds.
    await new Promise((resolve) => setTimeout(resolve, 3));
    collectGarbage();
    retainedBytes = process.memoryUsage().heapUsed;
    await all;
  });
  const retainedKiB = (retainedBytes - baseHeapBytes) / runs / 1024;
  const peakKiB = (peakHeapBytes - baseHeapBytes) / runs / 1024;
  console.log(
    `${format(runs, 0)} concurrent runs (5 stages, 10 ms await, 5 iterations): wall ${format(wallMs, 0)} ms, peak RSS ${format(peakRssBytes / 2 ** 20)} MiB, ` +
      `heap retained per in-flight run ${format(retainedKiB, 2)} KiB (target <= 10 KiB), peak heap incl. garbage ${format(peakKiB, 2)} KiB per run`,
  );
}

export async function run(): Promise<void> {
  await dispatchCost();
  await concurrentRuns();
}
