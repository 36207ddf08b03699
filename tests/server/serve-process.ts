// `stageloop serve` in a process of its own (as main.ts runs it), so a test can send it SIGTERM.
import { serveCommand } from '../../app/cli/serve-command.js';

const code = await serveCommand(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr });
process.exit(code);
