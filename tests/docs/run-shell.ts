// Runs the sh blocks of the docs line by line, as a newcomer would paste them: `stageloop` is this repository's
// bin/stageloop.js on PATH, the offline model answers (no model or key settings), runs are recorded in a fresh
// STAGELOOP_HOME, and the working folder is a fresh one holding the repository's bin/ and examples/.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { where, type BlockProblem, type DocBlock } from './doc-blocks.js';

export interface ShellPlace {
  folder: string;
  env: NodeJS.ProcessEnv;
}

/** A fresh folder and environment for one doc's blocks (a doc's lines may build on each other: sessions, RUN). */
export function shellPlace(root: string): ShellPlace {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-doc-'));
  const commands = join(folder, '.commands');
  mkdirSync(commands);
  symlinkSync(join(root, 'bin/stageloop.js'), join(commands, 'stageloop'));
  for (const shipped of ['bin', 'examples']) symlinkSync(join(root, shipped), join(folder, shipped));
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(OPENAI_|AGENT_|SERPAPI_|OTEL_|STAGELOOP_)/.test(key)) env[key] = value;
  }
  Object.assign(env, {
    NO_COLOR: '1',
    STAGELOOP_HOME: join(folder, '.stageloop'),
    PATH: `${commands}:${env.PATH ?? ''}`,
  });
  return { folder, env };
}

/** The exit code a line's comment promises (`(exit 4)`, `exit 2 if ...`), besides 0. */
function promisedExit(line: string): number | undefined {
  const found = /#.*\bexit (\d+)/.exec(line);
  return found ? Number(found[1]) : undefined;
}

/** What a line's comment says it prints (`# prints 395`), to be found in its output. */
function promisedOutput(line: string): string | undefined {
  return /#.*\bprints ([^\s,;)]+)/.exec(line)?.[1];
}

function run(command: string, place: ShellPlace): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('bash', ['-c', command], {
    cwd: place.folder,
    env: place.env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `RUN` is the newest recorded run; `ID` the first call it waits for. */
function fillPlaceholders(line: string, place: ShellPlace): string {
  if (!/\b(RUN|ID)\b/.test(line)) return line;
  const runs = JSON.parse(run('stageloop runs --json', place).stdout || '[]') as Array<{ runId: string }>;
  const runId = runs[0]?.runId ?? 'no-run-recorded';
  const shown = JSON.parse(run(`stageloop show ${runId} --json`, place).stdout || '{}') as {
    outcome?: { result?: { pending?: Array<{ id: string }> } };
  };
  return line
    .replace(/\bRUN\b/g, runId)
    .replace(/\bID\b/g, shown.outcome?.result?.pending?.[0]?.id ?? 'no-pending-call');
}

/**
 * npm's own commands are not run: the suite runs inside `npm test`, and its set-up has built dist/ (`npm ci` does
 * that for a newcomer). A line that starts with `npm ci && ` runs the rest.
 */
function withoutNpm(line: string): string | undefined {
  const rest = line.replace(/^npm ci && /, '');
  return /^npm\s/.test(rest) ? undefined : rest;
}

/** Runs every command line of the block; a line fails on an exit code its comment does not promise. */
export function runShellBlock(block: DocBlock, place: ShellPlace): BlockProblem[] {
  const problems: BlockProblem[] = [];
  block.code.split('\n').forEach((text, lineInBlock) => {
    const runnable = withoutNpm(text.trim());
    if (runnable === undefined || runnable === '' || runnable.startsWith('#')) return;
    const command = fillPlaceholders(runnable, place);
    const result = run(command, place);
    const allowed = [0, promisedExit(text)];
    const output = promisedOutput(text);
    const shown = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-3).join(' | ');
    if (!allowed.includes(result.status ?? -1)) {
      problems.push({ where: where(block, lineInBlock), message: `\`${command}\` exited ${result.status}: ${shown}` });
    } else if (output !== undefined && !result.stdout.includes(output)) {
      problems.push({ where: where(block, lineInBlock), message: `\`${command}\` did not print ${output}: ${shown}` });
    }
  });
  return problems;
}
