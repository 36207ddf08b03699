// MCP servers for tests, all real processes: the SDK test server (tests/support/mcp-test-server.ts) over stdio or
// Streamable HTTP, and the published @modelcontextprotocol/server-everything over stdio or its old SSE transport.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServer } from '../../src/tools/mcp/index.js';

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const testServerScript = join(repositoryRoot, 'tests/support/mcp-test-server.ts');
const everythingScript = join(repositoryRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export interface LogEntry {
  pid: number;
  event: 'started' | 'call' | 'finished' | 'cancelled' | 'elicited';
  tool?: string;
  /** An elicited answer's action (accept, decline, cancel) and content. */
  action?: string;
  content?: Record<string, unknown>;
  arguments?: Record<string, unknown>;
  reason?: string;
}

/** A fresh log file path for one test server. */
export function newLogFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'stageloop-mcp-')), 'calls.jsonl');
}

export function readLog(file: string): LogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogEntry);
}

/** Polls the log until an entry matches (the server writes it from another process). */
export async function waitForLog(
  file: string,
  matches: (entry: LogEntry) => boolean,
  timeoutMs = 10_000,
): Promise<LogEntry> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = readLog(file).find(matches);
    if (found) return found;
    if (Date.now() > until)
      throw new Error(`waitForLog: no matching entry in ${file} after ${timeoutMs} ms: ${readFileSync(file, 'utf8')}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** The SDK test server over stdio, started by whoever connects to it. */
export function stdioTestServer(logFile: string, name = 'test', extraArgs: string[] = []): McpServer {
  return {
    name,
    command: process.execPath,
    args: ['--import', 'tsx', testServerScript, ...extraArgs],
    env: { MCP_TEST_LOG: logFile },
    cwd: repositoryRoot,
  };
}

export function everythingStdioServer(name = 'everything'): McpServer {
  return { name, command: process.execPath, args: [everythingScript, 'stdio'] };
}

export interface RunningServer {
  url: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/** The SDK test server over Streamable HTTP, as a child process; resolves once it prints its URL. */
export async function startHttpTestServer(logFile: string): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', testServerScript, '--http'], {
    cwd: repositoryRoot,
    env: { ...process.env, MCP_TEST_LOG: logFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n')[0];
      if (output.includes('\n') && line) resolveUrl((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`mcp test server exited with ${code} before listening`)));
  });
  return { url, child, close: () => stop(child) };
}

/** server-everything speaking only the old HTTP+SSE transport, on a free port. */
export async function startEverythingSse(): Promise<RunningServer> {
  // A free port may be taken between asking and binding on a busy machine (the server then exits): try a few.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, [everythingScript, 'sse'], {
      cwd: repositoryRoot,
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await new Promise<void>((resolveReady, reject) => {
        let output = '';
        child.stderr!.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8');
          if (output.includes('running on port')) resolveReady();
        });
        child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}: ${output}`)));
      });
      return { url: `http://127.0.0.1:${port}/sse`, child, close: () => stop(child) };
    } catch (error) {
      if (attempt >= 4) throw error;
    }
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill();
  });
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}
