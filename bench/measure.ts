// Small measuring helpers shared by the benchmarks.
import { performance } from 'node:perf_hooks';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export async function timeMs(body: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await body();
  return performance.now() - start;
}

export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
}

/** Samples heap and RSS every few ms while `body` runs; returns the peaks. */
export async function peakMemory(
  body: () => Promise<unknown>,
): Promise<{ wallMs: number; peakHeapBytes: number; peakRssBytes: number; baseHeapBytes: number }> {
  collectGarbage();
  const baseHeapBytes = process.memoryUsage().heapUsed;
  let peakHeapBytes = baseHeapBytes;
  let peakRssBytes = process.memoryUsage().rss;
  const sample = () => {
    const usage = process.memoryUsage();
    peakHeapBytes = Math.max(peakHeapBytes, usage.heapUsed);
    peakRssBytes = Math.max(peakRssBytes, usage.rss);
  };
  const timer = setInterval(sample, 2);
  const wallMs = await timeMs(async () => {
    await body();
    sample();
  });
  clearInterval(timer);
  return { wallMs, peakHeapBytes, peakRssBytes, baseHeapBytes };
}

export const format = (value: number, digits = 1) => value.toLocaleString('en-US', { maximumFractionDigits: digits });
