// The engine turn beside the hand-written loop in one process: rounds of each contender interleaved (so they meet
// the same load and the same heap), CPU time of the process per turn, the median of the rounds as a ratio to the
// loop (the floor). The agent bench measures each contender in its own process; this one is the issue-46 figure.
import { starter, type Contender } from './agent-work.js';
import { format, median } from './measure.js';
import { measure } from './agent.bench.js';

const contenders: Array<[Contender, string]> = [
  ['loop', 'hand-written loop'],
  ['engine', 'stageloop, default guards'],
  ['unguarded', 'stageloop, guards: false'],
];

/** CPU µs per turn of each contender: `rounds` rounds of `runs` runs of 10 turns, after 3 of warm-up, interleaved. */
export async function turnRatios(rounds = 15, runs = 1_000): Promise<Record<Contender, number[]>> {
  const turns = 10;
  const samples: Record<Contender, number[]> = { loop: [], engine: [], unguarded: [], lean: [] };
  const starts = contenders.map(([contender]) => [contender, starter(contender, turns, 0)] as const);
  for (let round = -3; round < rounds; round++) {
    for (const [contender, start] of starts) {
      const before = process.cpuUsage();
      for (let index = 0; index < runs; index++) await start();
      const cpu = process.cpuUsage(before);
      if (round >= 0) samples[contender].push((cpu.user + cpu.system) / (runs * turns));
    }
  }
  return samples;
}

/**
 * 5,000 runs at once (5 turns, the model waiting 10 ms a turn), wall ms, interleaved. The heap a parked run keeps is
 * measured by the agent bench, a contender alone in its process (here one's garbage would land in another's figure).
 */
export async function concurrentRatios(rounds = 5): Promise<Record<Contender, number[]>> {
  const runs = 5_000;
  const wall: Record<Contender, number[]> = { loop: [], engine: [], unguarded: [], lean: [] };
  const starts = contenders.map(([contender]) => [contender, starter(contender, 5, 10)] as const);
  for (const [, start] of starts) await Promise.all(Array.from({ length: 200 }, start));
  for (let round = 0; round < rounds; round++) {
    for (const [contender, start] of starts) {
      const began = performance.now();
      await Promise.all(Array.from({ length: runs }, start));
      wall[contender].push(performance.now() - began);
    }
  }
  return wall;
}

export async function run(): Promise<void> {
  const turns = await turnRatios();
  const floor = median(turns.loop);
  console.log('ReAct turn in one process (10 turns, instant model; 15 interleaved rounds x 1,000 runs, CPU):');
  for (const [contender, label] of contenders) {
    const typical = median(turns[contender]);
    console.log(`  ${label}: ${format(typical, 2)} µs a turn, ${format(typical / floor, 2)}x the loop (goal <= 3x)`);
  }
  const wall = await concurrentRatios();
  const wallFloor = median(wall.loop);
  console.log('5,000 runs at once in one process (5 turns, 10 ms model; 5 interleaved rounds, wall):');
  for (const [contender, label] of contenders) {
    const typical = median(wall[contender]);
    console.log(`  ${label}: ${format(typical, 0)} ms, ${format(typical / wallFloor, 2)}x the loop (goal <= 1.5x)`);
  }
  // The heap a parked run keeps, each contender alone in its process (in this one, garbage would mix).
  const heap = (contender: Contender) => measure<{ retainedKiB: number }>('concurrent', contender).retainedKiB;
  const [engineHeap, loopHeap] = [heap('engine'), heap('loop')];
  console.log(
    `Heap a run in flight keeps (own process each): stageloop ${format(engineHeap, 2)} KiB, loop ${format(loopHeap, 2)} KiB (goal <= 10 KiB)`,
  );
}
