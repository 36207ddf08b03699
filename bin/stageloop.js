#!/usr/bin/env node
// Runs the compiled CLI from dist/ (built by `npm run build`, which `npm ci` and `npm pack` run): no TypeScript loader.
let cli;
try {
  cli = await import('../dist/app/cli/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('main.js')) throw error;
  process.stderr.write('stageloop: the compiled CLI is missing: run "npm run build" in the stageloop folder (npm ci runs it too)\n');
  process.exit(1);
}
await cli.runAndExit(process.argv.slice(2));
