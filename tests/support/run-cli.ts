// Runs the real `stageloop` command in a child process, as a user would, and collects its output.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

let storeHome: string | undefined;
/** One store folder per test process, removed when it exits. */
export function testStoreHome(): string {
  if (storeHome === undefined) {
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-cli-store-'));
    process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
    storeHome = folder;
  }
  return storeHome;
}

export const cliPath = fileURLToPath(new URL('../../bin/stageloop.js', import.meta.url));

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment a newcomer has: no model or search settings unless a test gives them. */
export function cleanEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(OPENAI_|ANTHROPIC_|AGENT_|SERPAPI_|OTEL_|STAGELOOP_)/.test(key)) env[key] = value;
  }
  // Runs record by default: into a folder of this test process, never the repository's ./.stageloop.
  return { ...env, NO_COLOR: '1', STAGELOOP_HOME: testStoreHome(), ...extra };
}

export interface StartedCli {
  child: ChildProcess;
  /** Resolves when the process exits. */
  done: Promise<CliRun>;
  /** Resolves once stderr contains the text. */
  waitForStderr(text: string | RegExp): Promise<void>;
}

export function startCli(args: string[], env: Record<string, string> = {}): StartedCli {
  const child = spawn(process.execPath, [cliPath, ...args], {
    env: cleanEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ pattern: string | RegExp; resolve: () => void }> = [];
  const matches = (pattern: string | RegExp) =>
    typeof pattern === 'string' ? stderr.includes(pattern) : pattern.test(stderr);
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of waiters.filter((entry) => matches(entry.pattern))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const done = new Promise<CliRun>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return {
    child,
    done,
    waitForStderr: (pattern) =>
      matches(pattern) ? Promise.resolve() : new Promise((resolve) => waiters.push({ pattern, resolve })),
  };
}

/** The address `stageloop serve` says it listens on (stdout); rejects if it exits first. */
export function servingUrl(started: StartedCli): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let stdout = '';
    started.child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const address = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      if (address !== undefined) resolve(address);
    });
    void started.done.then((result) => reject(new Error(`serve exited before listening: ${result.stderr}`)));
  });
}

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return startCli(args, env).done;
}
