// Preload (`node --import ./module-log.mjs`): appends the URL of every module the process loads to $MODULE_LOG:
// ES modules through loader hooks, CommonJS ones (require, createRequire) through Module._load.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const logPath = process.env.MODULE_LOG;
register('./module-log-hooks.mjs', import.meta.url, { data: { logPath } });

const load = Module._load;
Module._load = function loadAndLog(request, parent, isMain) {
  const loaded = load.call(this, request, parent, isMain);
  if (logPath && !request.startsWith('node:') && !Module.isBuiltin(request)) {
    appendFileSync(logPath, `${pathToFileURL(Module._resolveFilename(request, parent, isMain)).href}\n`);
  }
  return loaded;
};
