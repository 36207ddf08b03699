#!/usr/bin/env node
// Runs the compiled CLI from dist/ (built by `npm run build`, which `npm ci` and `npm pack` run): no TypeScript loader.
// dist/cli/ is the same CLI bundled into a few files, which start faster; a tsc build newer than the bundle (a bare
// `tsc -p tsconfig.build.json`) runs tsc's files instead, so a stale bundle never runs.
import { statSync } from 'node:fs';

const builtAt = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs;
const bundledAt = builtAt('../dist/cli/main.js');
const compiledAt = builtAt('../dist/.tsbuildinfo');
const entry = bundledAt !== undefined && !(compiledAt > bundledAt) ? '../dist/cli/main.js' : '../dist/app/cli/main.js';
// A trace of ours (--verbose) names the TypeScript sources, not the bundle's chunks.
if (process.argv.includes('--verbose')) process.setSourceMapsEnabled(true);
let cli;
try {
  cli = await import(entry);
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('main.js')) throw error;
  process.stderr.write(
    'stageloop: the compiled CLI is missing: run "npm run build" in the stageloop folder (npm ci runs it too)\n',
  );
  process.exit(1);
}
await cli.runAndExit(process.argv.slice(2));
