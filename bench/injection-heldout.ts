// Issue 39's held-out corpus by style (detection and false positives) and the detector's cost per kilobyte, a part of
// injection.bench.ts. A sample in parts is one turn's tool results: detected as the guard screens them (each one, then
// all together).
import { readFileSync } from 'node:fs';
import { detectInjection } from '../stages/guards/injection/injection-detector.js';
import { detectTogether } from '../stages/guards/injection/injection-together.js';
import { format, median } from './measure.js';

interface Sample {
  label: 'injection' | 'benign';
  style: string;
  text?: string;
  parts?: string[];
}

function load(name: string): Sample[] {
  return (
    JSON.parse(readFileSync(new URL(`../tests/fixtures/${name}`, import.meta.url), 'utf8')) as { samples: Sample[] }
  ).samples;
}

const detected = (sample: Sample) =>
  sample.parts === undefined ? detectInjection(sample.text!).detected : detectTogether(sample.parts).detected;

function rate(samples: Sample[], label: Sample['label']): string {
  const chosen = samples.filter((sample) => sample.label === label);
  if (chosen.length === 0) return '-';
  const hits = chosen.filter(detected).length;
  return `${format((100 * hits) / chosen.length)}% (${hits}/${chosen.length})`;
}

export function heldOut39(): void {
  for (const [name, what] of [
    ['injection-heldout-39.json', 'held-out corpus of issue 39 (never tuned on)'],
    ['injection-dev-39.json', 'development set of issue 39 (tuned on)'],
  ] as const) {
    const samples = load(name);
    console.log(`${what}: detection ${rate(samples, 'injection')}, false positives ${rate(samples, 'benign')}`);
    for (const style of [...new Set(samples.map((sample) => sample.style))]) {
      const ofStyle = samples.filter((sample) => sample.style === style);
      console.log(
        `  style ${style}: detection ${rate(ofStyle, 'injection')}, false positives ${rate(ofStyle, 'benign')}`,
      );
    }
  }
}

/** Microseconds per 1,024 characters: the held-out texts, and a 16,000-character page that mixes what the readings look for. */
export function screeningCostPerKb(): void {
  const texts = load('injection-heldout-39.json').flatMap((sample) => sample.parts ?? [sample.text!]);
  const characters = texts.reduce((sum, text) => sum + text.length, 0);
  const corpusTimes: number[] = [];
  for (let repeat = 0; repeat < 7; repeat++) {
    const started = performance.now();
    for (const text of texts) detectInjection(text);
    corpusTimes.push(performance.now() - started);
  }
  const unit =
    'Opening hours are 9 to 5; see [the map](https://shop.example/map "Where we are") or call us. ' +
    'Version 2.4.1 fixed error E4012. Our café serves ten teas. مرحبا بكم في متجرنا. ';
  const page = unit.repeat(Math.ceil(16_000 / unit.length)).slice(0, 16_000);
  const pageTimes: number[] = [];
  for (let repeat = 0; repeat < 7; repeat++) {
    const started = performance.now();
    detectInjection(page);
    pageTimes.push(performance.now() - started);
  }
  console.log(
    `cost per KiB (median of 7): held-out texts ${format((median(corpusTimes) * 1000 * 1024) / characters, 0)} µs ` +
      `(${texts.length} texts, ${format(characters / texts.length, 0)} characters on average); a 16,000-character mixed page ` +
      `${format((median(pageTimes) * 1000 * 1024) / page.length, 0)} µs (${format(median(pageTimes), 2)} ms)`,
  );
}
