// Vitest global setup: compiles src/, stages/ and pipelines/ into dist/ before any test, then bundles the CLI into
// dist/cli/, so the tests that run the real `stageloop` command (bin/ → dist/cli/) always run the current sources,
// never a stale build. Incremental: ~1 s when nothing changed; the bundle takes well under a second.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export default function buildBeforeTests(): void {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/bundle-cli.mjs'], { cwd: root, stdio: 'inherit' });
}
