// One contender of the agent bench, measured alone in this process (agent.bench.ts starts one process per
// measurement, so the contenders never share JIT feedback or heap): `node --import tsx --expose-gc
// bench/agent-contender.ts turn|concurrent engine|lean|loop` prints one JSON line.
import { starter, type Contender } from './agent-work.js';
import { median, timeMs, collectGarbage } from './measure.js';

/**
 * µs per turn of runs of 10 turns, one run after another: best and median of 9 rounds of 2,000 runs, after 2 of
 * warm-up; wall time, and CPU time of this process (the steadier figure when other work shares the cores).
 */
async function turnCost(
  contender: Contender,
): Promise<{ best: number; median: number; cpuBest: number; cpuMedian: number }> {
  const turns = 10;
  const runs = 2_000;
  const start = starter(contender, turns, 0);
  const check = await start();
  if (check !== undefined && typeof check === 'object' && (check as { iterations?: number }).iterations !== turns)
    throw new Error('bench pipeline misbehaves');
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  // Two rounds of warm-up (the JIT), then 9 measured. No forced collection between rounds: it shrinks the young
  // generation, so the next round promotes more, and its times then swing by half with the collector.
  for (let round = -2; round < 9; round++) {
    const cpuBefore = process.cpuUsage();
    const ms = await timeMs(async () => {
      for (let index = 0; index < runs; index++) await start();
    });
    const cpu = process.cpuUsage(cpuBefore);
    if (round < 0) continue;
    samples.push((ms * 1_000) / (runs * turns));
    cpuSamples.push((cpu.user + cpu.system) / (runs * turns));
  }
  return {
    best: Math.min(...samples),
    median: median(samples),
    cpuBest: Math.min(...cpuSamples),
    cpuMedian: median(cpuSamples),
  };
}

/** 5,000 concurrent runs of 5 turns, the model waiting 10 ms a turn: wall time (best and median of 3), heap a parked run keeps. */
async function concurrent(contender: Contender): Promise<{ best: number; median: number; retainedKiB: number }> {
  const runs = 5_000;
  const start = starter(contender, 5, 10);
  await Promise.all(Array.from({ length: 200 }, start));
  const walls: number[] = [];
  for (let round = 0; round < 3; round++) {
    walls.push(await timeMs(() => Promise.all(Array.from({ length: runs }, start))));
  }
  // Retained: a forced collection while every run waits in its first model call (not part of the timed rounds).
  collectGarbage();
  const base = process.memoryUsage().heapUsed;
  const all = Promise.all(Array.from({ length: runs }, start));
  await new Promise((resolve) => setTimeout(resolve, 3));
  collectGarbage();
  const retainedKiB = (process.memoryUsage().heapUsed - base) / runs / 1024;
  await all;
  return { best: Math.min(...walls), median: median(walls), retainedKiB };
}

const [mode, contender] = process.argv.slice(2) as ['turn' | 'concurrent', Contender];
if (!['engine', 'unguarded', 'lean', 'loop'].includes(contender) || !['turn', 'concurrent'].includes(mode)) {
  console.error('usage: agent-contender.ts turn|concurrent engine|unguarded|lean|loop');
  process.exit(2);
}
console.log(JSON.stringify(mode === 'turn' ? await turnCost(contender) : await concurrent(contender)));
