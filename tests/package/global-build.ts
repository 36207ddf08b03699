// Vitest global setup: compiles src/, stages/ and pipelines/ into dist/ before any test, so the tests that run the
// real `stageloop` command (bin/ → dist/) always run the current sources, never a stale build. Incremental: ~1 s when nothing changed.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export default function buildBeforeTests(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: fileURLToPath(new URL('../../', import.meta.url)), stdio: 'inherit' });
}
