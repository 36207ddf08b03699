// Vitest global setup: builds dist/ before any test (scripts/build.mjs --incremental: tsc rebuilds what changed, then
// the CLI bundle, then the build stamp), so the tests that run the real `stageloop` command (bin/ → dist/cli/) always
// run the current sources, and `npm pack` afterwards finds dist/ up to date. ~1 s of tsc when nothing changed.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function buildBeforeTests(): void {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs', '--incremental'], { cwd: root, stdio: 'inherit' });
}
