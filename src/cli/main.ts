// The stageloop command line. The CLI entry is the one place in src/ that assembles stages and pipelines.
import { readFileSync } from 'node:fs';

const usage = `Usage: stageloop <command> [options]

Commands:
  run "TASK"          run an agent on a task
  pipelines           list the built-in pipelines and their stages

Options:
  -h, --help          show this help
  -v, --version       print the version`;

export function version(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return packageJson.version;
}

/** Runs the CLI and returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  process.stderr.write(`stageloop: unknown command "${command}": run "stageloop --help" for the list of commands\n`);
  return 2;
}
