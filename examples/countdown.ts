// A tiny custom pipeline: the README's example of writing stages by hand.
import { breakLoop, definePipeline, runPipeline, type Stage } from '../src/index.js';

declare module '../src/index.js' {
  interface StageSlots {
    countdown: { remaining: number };
  }
}

const start: Stage = {
  name: 'start',
  async execute(state) {
    state.countdown = { remaining: Number(state.input.task) || 3 };
  },
};

const countdown: Stage = {
  name: 'countdown',
  async execute(state) {
    const slot = state.countdown!;
    process.stderr.write(`iteration ${state.iteration}: ${slot.remaining} left\n`);
    slot.remaining -= 1;
    if (slot.remaining === 0) return breakLoop('counted down');
  },
};

const report: Stage = {
  name: 'report',
  async execute(state) {
    state.answer = `lift-off after ${state.iteration} iterations`;
  },
};

const pipeline = definePipeline({
  name: 'countdown',
  setup: [start],
  iteration: [countdown],
  finalize: [report],
  maxIterations: 10,
});
const result = await runPipeline(pipeline, { task: process.argv[2] ?? '3' });
console.log(result.answer);
console.log(
  `status ${result.status}, stop reason ${result.stopReason.kind} (${result.stopReason.stage ?? 'runner'}: ${result.stopReason.message})`,
);
