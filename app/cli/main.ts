// The stageloop command line: finds the command in the table (commands.ts), runs it, and turns what it throws into
// one line and an exit code. Only this file and the table load up front (--help stays instant).
import { processIo, type CommandIo } from './command.js';
import { commandList, commands } from './commands.js';
import { terminalSafe, errorLine } from './terminal-text.js';
import { cliMessageOf } from './command-name.js';
import { StageloopError, codeOf, exitCodeOf } from '../../src/common/stageloop-error.js';
import { packageVersion } from '../../src/common/version.js';
import { docsFolder, withDocsPaths } from './docs-path.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const usage = () => `Usage: stageloop <command> [options]

Commands:
${commandList()}

Options:
  -h, --help             show help (also: stageloop run --help, stageloop help run)
  -v, --version          print the version

With no OPENAI_API_KEY and no OPENAI_BASE_URL, stageloop uses its built-in offline model.${docsLine()}`;

/** Where the docs are on this machine (they ship in the package), so a "docs/..." named above can be opened. */
const docsLine = () => {
  const docs = docsFolder();
  if (docs === null) return '';
  return `\nDocs: ${docs}${existsSync(join(docs, 'getting-started.md')) ? ' (start with getting-started.md)' : ''}`;
};

/** Runs the CLI and returns the process exit code; `given` replaces the process's streams, environment or folder. */
export async function main(argv: readonly string[], given: Partial<CommandIo> = {}): Promise<number> {
  const io = processIo(given);
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '-h' || name === '--help' || (name === 'help' && rest.length === 0))
      return (void io.stdout.write(`${withDocsPaths(usage())}\n`), 0);
    if (name === '-v' || name === '--version') return (void io.stdout.write(`${packageVersion()}\n`), 0);
    const helpOf = name === 'help';
    const command = commands.find((entry) => entry.name === (helpOf ? rest[0] : name));
    if (command === undefined)
      throw new StageloopError(
        'usage',
        `unknown command "${helpOf ? rest[0] : name}": run "stageloop --help" for the list of commands`,
      );
    const loaded = await command.load();
    const code = helpOf ? 'help' : await loaded.run(rest, io);
    if (code === 'help') io.stdout.write(`${withDocsPaths(await loaded.usage())}\n`);
    return code === 'help' ? 0 : code;
  } catch (error) {
    // The error's code decides: a mistake the user can fix is one line and exit 2; anything else is ours (exit 1).
    const exitCode = exitCodeOf[codeOf(error)];
    // A message that already names the command ("stageloop show needs a run id") gets no second prefix.
    io.stderr.write(errorLine(withDocsPaths(cliMessageOf(error))));
    if (exitCode !== 2 && argv.includes('--verbose') && error instanceof Error && error.stack)
      io.stderr.write(`${terminalSafe(error.stack)}\n`);
    return exitCode;
  }
}

/** The bin's entry: runs the CLI, then exits once stdout and stderr are flushed, whatever timers are still pending. */
export async function runAndExit(argv: string[]): Promise<never> {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  const code = await main(argv);
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // A referenced timer left by a dependency (an SDK's retry sleep) must not keep a finished CLI alive.
  process.exit(code);
}

/** A reader that went away (`stageloop pipelines | head -1`) ends our output, not the run: no EPIPE trace, same exit code. */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}
