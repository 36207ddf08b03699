// Start-up of the `stageloop` command as a whole process (spawn to exit), and what the calculator's process costs.
// Run `npm run build` first: the command runs the compiled dist/.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CalculatorWorkerHost, defaultCalculatorLimits } from '../src/tools/calculator-host.js';
import { median } from './measure.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const cli = fileURLToPath(new URL('../bin/stageloop.js', import.meta.url));
const runs = Number(process.env.STARTUP_RUNS ?? 9);

/** Wall ms of one whole process, spawn to exit. */
function processMs(args: string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { PATH: process.env.PATH, ...env },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

async function figures(label: string, measure: () => Promise<number>): Promise<void> {
  await measure(); // warm-up: the file system cache
  const times: number[] = [];
  for (let index = 0; index < runs; index++) times.push(await measure());
  const format = (ms: number) => `${(ms / 1000).toFixed(3)} s`;
  console.log(
    `${label.padEnd(52)} median ${format(median(times))}  min ${format(Math.min(...times))}  max ${format(Math.max(...times))}`,
  );
}

export async function run(): Promise<void> {
  console.log(`${runs} runs each after one warm-up; whole process, wall time`);
  await figures('stageloop --help', () => processMs([cli, '--help']));
  await figures('stageloop pipelines', () => processMs([cli, 'pipelines']));
  await figures('stageloop run "What is 17 * 23 + 4?" (offline)', () =>
    processMs([cli, 'run', 'What is 17 * 23 + 4?']),
  );
  await figures('node: empty process', () => processMs(['-e', '0']));
  await figures("node: import('mathjs') (ESM graph)", () =>
    processMs(['--input-type=module', '-e', "await import('mathjs')"]),
  );
  await figures("node: require('mathjs/lib/browser/math.js')", () =>
    processMs(['-e', "require('mathjs/lib/browser/math.js')"]),
  );
  await figures('calculator process: spawn until mathjs is ready', async () => {
    const host = new CalculatorWorkerHost(defaultCalculatorLimits);
    const started = performance.now();
    await host.warm();
    const ms = performance.now() - started;
    await host.close();
    return ms;
  });
}
