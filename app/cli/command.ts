// What a CLI command is: an entry of the command table (commands.ts) and the file it loads when it runs.
import type { Environment } from '../../src/model/config.js';

/** The two output streams, for helpers that only print. */
export interface CliStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Everything a command reads from the outside, in one object: its streams, environment and folder. */
export interface CommandIo extends CliStreams {
  stdin: NodeJS.ReadableStream;
  env: Environment;
  cwd: string;
}

/** The file of one command: its help text and how it runs. */
export interface CommandModule {
  /** What `stageloop NAME --help` and `stageloop help NAME` print. */
  usage(): string | Promise<string>;
  /** Parses argv through args.ts and runs; 'help' asks main to print `usage()`. Throws a StageloopError for a user's mistake. */
  run(argv: readonly string[], io: CommandIo): Promise<number | 'help'>;
}

/** One line of the command table. The file loads only when the command runs, so `stageloop --help` stays instant. */
export interface Command {
  readonly name: string;
  /** The left column of `stageloop --help`, e.g. `show RUN [--json]`. */
  readonly synopsis: string;
  readonly summary: string;
  load(): Promise<CommandModule>;
}

/** The process's own streams, environment and folder, with `given` winning (tests pass their own). */
export function processIo(given: Partial<CommandIo> = {}): CommandIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    ...given,
  };
}
