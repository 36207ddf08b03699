// Loader hooks for module-log.mjs. They run on the loader thread; appendFileSync keeps the log complete even when
// the process ends with process.exit().
import { appendFileSync } from 'node:fs';

let logPath;

export function initialize(data) {
  logPath = data.logPath;
}

export async function load(url, context, nextLoad) {
  if (logPath) appendFileSync(logPath, `${url}\n`);
  return nextLoad(url, context);
}
