// Bundles the compiled CLI (dist/app/cli/main.js, tsc's output) into dist/cli/: Node's ES module loader spends most of
// a short command's start-up resolving and reading files one by one, and a bundle is a few files instead of
// hundreds (zod alone is 95). Only zod and our own modules go in; every other package stays external and loads as
// before, the optional ones only when their feature runs. The library's entries (dist/src, dist/app...) stay
// unbundled: this is the command's copy. Run after tsc (`npm run build`, and the tests' global set-up).
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const outdir = 'dist/cli';

/** zod and its subpaths are bundled; any other package name (and node: built-ins) stays an import of the package. */
const bundled = /^zod(\/|$)/;

const keepPackagesExternal = {
  name: 'keep-packages-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      bundled.test(args.path) ? undefined : { path: args.path, external: true },
    );
    // The OTel set-up holds the process's tracing session: the CLI shares dist/otel.config.js with a preloaded
    // `node --import stageloop/otel` instead of starting a second copy of it.
    builder.onResolve({ filter: /\/otel\.config\.js$/ }, () => ({ path: '../otel.config.js', external: true }));
  },
};

export async function bundleCli() {
  rmSync(new URL(`../${outdir}`, import.meta.url), { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    // The calculator's process file sits beside the chunks: the host finds it next to itself (import.meta.url).
    entryPoints: { main: 'dist/app/cli/main.js', 'calculator-worker': 'dist/src/tools/calculator-worker.js' },
    outdir,
    bundle: true,
    // Each command's modules in their own chunks, loaded by its import() as before: --help still loads no zod.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Functions and classes keep their names (error names, stage factories) though the bundle shares one scope.
    keepNames: true,
    // Maps through tsc's own maps back to the TypeScript sources.
    sourcemap: true,
    plugins: [keepPackagesExternal],
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleCli();
