// Tracing overhead: per-turn cost of a ReAct run (real stages and ToolRegistry, an instant model, a trivial tool)
// with tracing off, with the API but no SDK, and with the SDK (batch processor, as otel.config.ts) and an
// in-memory exporter; and the SDK's floor: the same span tree made by the SDK alone (tracing-work.ts).
import { instrumentDeps } from '../src/tracing/instrument.js';
import { format, median } from './measure.js';
import {
  benchTracerProvider,
  cpuPerTurn,
  makeSpans,
  plainDeps,
  reactRun,
  spanShapes,
  withAsyncContext,
} from './tracing-work.js';

const turnsPerRun = 20;
const runsPerSample = 20;
const samples = 25;
const runOnce = reactRun(turnsPerRun);
const sample = (makeDeps: () => object) => cpuPerTurn(runsPerSample, turnsPerRun, () => runOnce(makeDeps()));

type Mode = 'off' | 'apiOnly' | 'sdk' | 'offWithHooks' | 'floor';

export async function run(): Promise<void> {
  const { provider, tracer, flushed } = benchTracerProvider();
  // The floor replays the span tree of one traced run: the same names, kinds, attributes and nesting.
  const shapes = await withAsyncContext(async () => {
    await runOnce(instrumentDeps(plainDeps(turnsPerRun), { tracer }));
    return spanShapes(await flushed());
  });
  let spansPerRun = 0;
  const modes: Record<Mode, () => Promise<number>> = {
    off: () => sample(() => plainDeps(turnsPerRun)),
    apiOnly: () => sample(() => instrumentDeps(plainDeps(turnsPerRun))),
    sdk: () =>
      withAsyncContext(async () => {
        const value = await sample(() => instrumentDeps(plainDeps(turnsPerRun), { tracer }));
        spansPerRun = (await flushed()).length / runsPerSample;
        return value;
      }),
    offWithHooks: () => withAsyncContext(() => sample(() => plainDeps(turnsPerRun))),
    floor: () =>
      withAsyncContext(async () => {
        const value = await cpuPerTurn(runsPerSample, turnsPerRun, () => makeSpans(tracer, shapes));
        await flushed();
        return value;
      }),
  };
  const measured: Record<Mode, number[]> = { off: [], apiOnly: [], sdk: [], offWithHooks: [], floor: [] };
  // Interleaved rounds so JIT warm-up and machine noise fall on every mode alike; the first round is warm-up.
  for (let round = 0; round <= samples; round++) {
    for (const mode of Object.keys(modes) as Mode[]) {
      const value = await modes[mode]();
      if (round > 0) measured[mode].push(value);
    }
  }
  await provider.shutdown();

  const off = median(measured.off);
  const line = (label: string, values: number[], note = '') => {
    const value = median(values);
    console.log(
      `  ${label.padEnd(44)}${format(value, 2).padStart(8)} µs CPU per turn  (${format(value / off, 2)}x)${note}`,
    );
  };
  const spansPerTurn = spansPerRun / turnsPerRun;
  console.log(
    `ReAct per-turn cost: ${turnsPerRun} turns per run, ${runsPerSample} runs per sample, median of ${samples} interleaved samples; ${spansPerRun} spans per run with the SDK`,
  );
  line('tracing off', measured.off);
  line('API only, no SDK registered', measured.apiOnly);
  line('SDK + in-memory exporter + ALS context', measured.sdk);
  line('tracing off, ALS context manager on', measured.offWithHooks);
  line('SDK floor: the same span tree, SDK alone', measured.floor, '  (no engine: spans only)');
  const perSpan = (median(measured.sdk) - off) / spansPerTurn;
  const floorPerSpan = median(measured.floor) / spansPerTurn;
  console.log(
    `  per span: ${format(perSpan, 1)} µs traced (SDK - off), ${format(floorPerSpan, 1)} µs the SDK's floor, ${format(perSpan - floorPerSpan, 1)} µs ours above it (${format(spansPerTurn, 1)} spans per turn: iteration, 4 stages, chat, tool); goal <= 5 µs a span`,
  );
}
