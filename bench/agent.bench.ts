// Agent turn cost: a ReAct run through the built-in stages against a hand-written loop doing the same work.
// Each measurement runs in a fresh process (bench/agent-contender.ts) so the contenders share no JIT feedback or
// heap; each is measured in 3 processes, interleaved, and the figures are the best and the median of those.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { format, median } from './measure.js';

type Contender = 'engine' | 'unguarded' | 'lean' | 'loop';
const contenders: Array<[Contender, string]> = [
  ['loop', 'hand-written loop'],
  ['engine', 'stageloop with ToolRegistry (default guards on)'],
  ['unguarded', 'stageloop with ToolRegistry, guards: false'],
  ['lean', "stageloop with a lean ToolBox (only the loop's validation)"],
];
const script = fileURLToPath(new URL('./agent-contender.ts', import.meta.url));

/** One contender alone in a fresh process (turn.bench.ts reads the heap figure through it too). */
export function measure<Result>(mode: 'turn' | 'concurrent', contender: Contender): Result {
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--expose-gc', script, mode, contender], {
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').pop()!) as Result;
}

function collect<Result>(mode: 'turn' | 'concurrent'): Record<Contender, Result[]> {
  const results: Record<Contender, Result[]> = { engine: [], unguarded: [], lean: [], loop: [] };
  for (let repeat = 0; repeat < 3; repeat++) {
    for (const [contender] of contenders) results[contender].push(measure<Result>(mode, contender));
  }
  return results;
}

export async function run(): Promise<void> {
  const turns = collect<{ best: number; median: number; cpuBest: number; cpuMedian: number }>('turn');
  const turnBest = (contender: Contender) => Math.min(...turns[contender].map((result) => result.best));
  const turnTypical = (contender: Contender) => median(turns[contender].map((result) => result.median));
  console.log(
    'ReAct turn (10 turns: 9 zod-validated tool calls + answer, instant model; 3 processes x 9 rounds x 2,000 runs):',
  );
  for (const [contender, label] of contenders) {
    const ratio =
      contender === 'loop'
        ? ''
        : `, ratio best ${format(turnBest(contender) / turnBest('loop'), 2)}x / typical ${format(turnTypical(contender) / turnTypical('loop'), 2)}x (target <= 3x)`;
    console.log(
      `  ${label}: best ${format(turnBest(contender), 2)} µs, typical ${format(turnTypical(contender), 2)} µs per turn${ratio}`,
    );
  }
  // CPU time of each contender's own process: other work on shared cores inflates it less than wall time.
  const cpuBest = (contender: Contender) => Math.min(...turns[contender].map((result) => result.cpuBest));
  const cpuTypical = (contender: Contender) => median(turns[contender].map((result) => result.cpuMedian));
  for (const [contender, label] of contenders) {
    const ratio =
      contender === 'loop'
        ? ''
        : `, ratio best ${format(cpuBest(contender) / cpuBest('loop'), 2)}x / typical ${format(cpuTypical(contender) / cpuTypical('loop'), 2)}x`;
    console.log(
      `  CPU, ${label}: best ${format(cpuBest(contender), 2)} µs, typical ${format(cpuTypical(contender), 2)} µs per turn${ratio}`,
    );
  }
  const guardCost = (pick: (contender: Contender) => number) => format(pick('engine') / pick('unguarded'), 2);
  console.log(
    `  default guards: ratio best ${guardCost(turnBest)}x / typical ${guardCost(turnTypical)}x against guards: false (target <= 1.1x)`,
  );

  const walls = collect<{ best: number; median: number; retainedKiB: number }>('concurrent');
  const wallBest = (contender: Contender) => Math.min(...walls[contender].map((result) => result.best));
  const wallTypical = (contender: Contender) => median(walls[contender].map((result) => result.median));
  console.log('5,000 concurrent ReAct runs (5 turns, model awaits 10 ms a turn; 3 processes x 3 rounds):');
  for (const [contender, label] of contenders) {
    const retained = Math.max(...walls[contender].map((result) => result.retainedKiB));
    const ratio =
      contender === 'loop'
        ? ''
        : `, ratio best ${format(wallBest(contender) / wallBest('loop'), 2)}x / typical ${format(wallTypical(contender) / wallTypical('loop'), 2)}x (target <= 1.5x)`;
    console.log(
      `  ${label}: wall best ${format(wallBest(contender), 0)} ms, typical ${format(wallTypical(contender), 0)} ms${ratio}; heap per in-flight run ${format(retained, 2)} KiB (target <= 10 KiB)`,
    );
  }
}
