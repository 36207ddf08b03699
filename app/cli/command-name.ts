// The name hints give the command: the one the user typed. From a clone that is ./bin/stageloop.js (the README's
// first command) until `npm link` puts `stageloop` on the PATH; a hint naming a command that is not there is no help.
import { basename, isAbsolute, relative, sep } from 'node:path';
import { isStageloopError } from '../../src/common/stageloop-error.js';
import { messageOf } from '../../src/common/error-message.js';

/** `stageloop` when run through a bin link on the PATH; else the script's path from the working folder ("./bin/stageloop.js"). */
export function invokedName(script: string | undefined = process.argv[1], cwd: string = process.cwd()): string {
  if (script === undefined || basename(script) !== 'stageloop.js') return 'stageloop';
  const path = relative(cwd, script);
  if (path === '' || isAbsolute(path)) return script;
  // Outside the working folder the path as run is clearer than a climb of ../ segments.
  return path.startsWith('..') ? script : `.${sep}${path}`;
}

/** A hint's quoted and "with:" commands under the invoked name: `"stageloop runs"` → `"./bin/stageloop.js runs"`. */
export function withInvokedName(text: string, name: string = invokedName()): string {
  return name === 'stageloop' ? text : text.replace(/(["'`]|with: |or: |\| )stageloop (?=[a-z-])/g, `$1${name} `);
}

/** An error's message and its command-line hint, for the CLI's one error line. */
export function cliMessageOf(error: unknown): string {
  const message = messageOf(error);
  return isStageloopError(error) && error.hint !== undefined ? `${message}: ${error.hint}` : message;
}
