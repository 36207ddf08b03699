// Faults at scale: 1,000 concurrent ReAct runs and 10,000 sequential ones with ~5% model and ~5% tool faults injected;
// wall time, outcome counts, cross-run leaks (must be 0) and heap growth. Measured in a fresh process with --expose-gc.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { format } from './measure.js';

interface Tally {
  outcomes: Record<string, number>;
  leaks: number;
  wrongOutcome: number;
  finalizeNotOnce: number;
}

export async function run(): Promise<void> {
  const script = fileURLToPath(new URL('./faults-run.ts', import.meta.url));
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--expose-gc', script], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const figures = JSON.parse(output.trim().split('\n').pop()!) as {
    concurrentMs: number;
    concurrent: Tally;
    sequentialMs: number;
    sequential: Tally;
    heapBefore: number;
    heapAt: number[];
    unhandled: number;
  };
  const describe = (tally: Tally) =>
    `outcomes ${Object.entries(tally.outcomes)
      .map(([status, count]) => `${status} ${count}`)
      .join(', ')}; cross-run leaks or wrong answers ${tally.leaks}; ` +
    `unexpected outcomes ${tally.wrongOutcome}; finalize not exactly once ${tally.finalizeNotOnce}`;
  console.log(
    `1,000 concurrent runs (5% model faults: error, hang cancelled at 100 ms; 5% tool faults: throw, hang past a 50 ms timeout): wall ${format(figures.concurrentMs, 0)} ms; ${describe(figures.concurrent)}`,
  );
  console.log(
    `10,000 sequential runs, same faults: wall ${format(figures.sequentialMs, 0)} ms (${format((figures.sequentialMs * 1000) / 10_000, 0)} µs a run); ${describe(figures.sequential)}`,
  );
  console.log(
    `heap after GC: ${format(figures.heapBefore, 1)} MiB before, ${figures.heapAt.map((value) => format(value, 1)).join(' / ')} MiB after each 2,500 runs; unhandled rejections ${figures.unhandled}`,
  );
}
