// Runs `stageloop worker` or `stageloop submit` through their command functions, as main.ts will once wired.
import { workerCommand } from '../../app/cli/worker-command.js';
import { submitCommand } from '../../app/cli/submit-command.js';
import { messageOf } from '../../src/common/error-message.js';

const [command, ...rest] = process.argv.slice(2);
const streams = { stdout: process.stdout, stderr: process.stderr };
let code: number;
try {
  code = command === 'worker' ? await workerCommand(rest, process.env, streams) : await submitCommand(rest, streams);
} catch (error) {
  process.stderr.write(`stageloop: ${messageOf(error)}\n`);
  code = error instanceof Error && error.name === 'UsageError' ? 2 : 1;
}
process.exit(code);
