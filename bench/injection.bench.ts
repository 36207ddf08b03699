// Injection screening: detection and false-positive rates of the default detector on the labelled corpus, and its speed.
import { readFileSync } from 'node:fs';
import { detectInjection } from '../stages/injection-detector.js';
import { format, median } from './measure.js';

interface Sample { label: 'injection' | 'benign'; round: string; text: string }

function rates(samples: Sample[]): string {
  const injections = samples.filter((sample) => sample.label === 'injection');
  const benign = samples.filter((sample) => sample.label === 'benign');
  const detected = injections.filter((sample) => detectInjection(sample.text).detected).length;
  const falsePositives = benign.filter((sample) => detectInjection(sample.text).detected).length;
  return `detection ${format((100 * detected) / injections.length)}% (${detected}/${injections.length}), ` +
    `false positives ${format((100 * falsePositives) / benign.length)}% (${falsePositives}/${benign.length})`;
}

export async function run(): Promise<void> {
  const corpus = JSON.parse(readFileSync(new URL('../tests/fixtures/injection-corpus.json', import.meta.url), 'utf8')) as { samples: Sample[] };
  console.log(`whole corpus: ${rates(corpus.samples)}`);
  for (const round of [...new Set(corpus.samples.map((sample) => sample.round))]) {
    console.log(`  round ${round}: ${rates(corpus.samples.filter((sample) => sample.round === round))}`);
  }
  const perText: number[] = [];
  for (let repeat = 0; repeat < 5; repeat++) {
    const started = performance.now();
    for (const sample of corpus.samples) detectInjection(sample.text);
    perText.push(((performance.now() - started) * 1000) / corpus.samples.length);
  }
  const averageLength = corpus.samples.reduce((sum, sample) => sum + sample.text.length, 0) / corpus.samples.length;
  console.log(`screening time: ${format(median(perText), 0)} µs per text (median of 5 passes; texts average ${format(averageLength, 0)} characters)`);
  const page = 'Plain paragraph about gardening and the weather this week, with nothing unusual in it. '.repeat(600);
  const started = performance.now();
  detectInjection(page);
  console.log(`a ${format(page.length / 1024, 0)} KiB page: ${format(performance.now() - started)} ms`);
}
