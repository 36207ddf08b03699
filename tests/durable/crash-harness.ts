// What the crash test needs around its child process: the deterministic loopback model, the child built once,
// spawning and aiming kills at its markers, a seeded random generator, and normalising timing fields.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { sendReply, startChatServer, type ChatServer, type ReplyOptions } from '../support/chat-server.js';
import type { ChildConfig } from './crash-child.js';

const repository = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Same seed, same kill plan: a failure can be reproduced with CRASH_SEED=<seed>. */
export function seededRandom(seed: number): {
  next(): number;
  between(low: number, high: number): number;
  pick<Item>(items: readonly Item[]): Item;
} {
  let value = seed >>> 0;
  const next = (): number => {
    // mulberry32
    value = (value + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(value ^ (value >>> 15), 1 | value);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    between: (low, high) => low + Math.floor(next() * (high - low + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}

export interface ScriptedModel {
  server: ChatServer;
  /** Called as each request arrives, before its reply is delayed and sent; `summary` for the tool-less one. */
  onRequest: ((request: { toolResults: number; summary: boolean }) => void) | undefined;
  close(): Promise<void>;
}

/**
 * Answers from the request alone, so every process (and the uninterrupted reference) gets the same replies. ReAct: a
 * tool call numbered after the tool results so far until `toolTurns` are in, then a final answer; a tool-less request
 * (the early-stop summary) gets a summary. Plan-Execute-Replan: a plan of three parts, one tool call per part (numbered
 * by the part its brief names) then the part's result, a replanner that keeps the plan. Each reply waits `delayMs`.
 */
export async function startScriptedModel(
  toolTurns: number,
  delayMs: number,
  graphPlan = false,
): Promise<ScriptedModel> {
  const server = await startChatServer();
  const model: ScriptedModel = { server, onRequest: undefined, close: () => server.close() };
  server.handle(async (request, response) => {
    const body = request.body;
    const toolResults = body.messages.filter((message) => message.role === 'tool').length;
    const part = body.messages
      .map((message) => /Current step \((\d+) of \d+\)/.exec(message.content ?? '')?.[1])
      .find(Boolean);
    // The planner and replanner are told their shape in the system prompt (no response format).
    const system = body.messages.find((message) => message.role === 'system')?.content ?? '';
    const format =
      body.response_format?.json_schema?.name ??
      (system.startsWith('You are the planner')
        ? 'plan'
        : system.startsWith('You are the replanner')
          ? 'replan'
          : undefined);
    model.onRequest?.({ toolResults, summary: body.tools === undefined && part === undefined && format === undefined });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    const reply =
      format !== undefined
        ? structuredReply(format, graphPlan)
        : part !== undefined
          ? partReply(Number(part), toolResults, body.tools !== undefined)
          : reactReply(toolResults, toolTurns, body.tools !== undefined);
    if (response.destroyed) return;
    sendReply(request, response, { ...reply, usage: { input: 10 + toolResults, output: 5 } });
  }, Number.MAX_SAFE_INTEGER);
  return model;
}

const addition = (step: number): ReplyOptions => ({
  toolCalls: [
    {
      id: `call_${step}`,
      name: 'calculator',
      arguments: JSON.stringify({ step, expression: `${step} + ${step * 10}` }),
    },
  ],
});

function reactReply(toolResults: number, toolTurns: number, withTools: boolean): ReplyOptions {
  if (!withTools) return { content: `summary: ${toolResults} steps done` };
  return toolResults < toolTurns ? addition(toolResults + 1) : { content: `done: ${toolResults} steps` };
}

function partReply(part: number, toolResults: number, withTools: boolean): ReplyOptions {
  return withTools && toolResults === 0 ? addition(part) : { content: `part ${part} adds up to ${part * 11}` };
}

/** A chain of three parts; or a graph: three independent parts side by side, and a fourth that needs them all. */
function structuredReply(format: string, graphPlan: boolean): ReplyOptions {
  if (format === 'plan' && graphPlan) {
    const parts = [1, 2, 3].map((part) => ({
      id: `p${part}`,
      description: `Add the numbers of part ${part}`,
      dependsOn: [],
    }));
    return {
      content: JSON.stringify({
        goal: 'add',
        steps: [...parts, { id: 'p4', description: 'Add the numbers of part 4', dependsOn: ['p1', 'p2', 'p3'] }],
      }),
    };
  }
  if (format === 'plan')
    return {
      content: JSON.stringify({
        steps: [1, 2, 3].map((part) => ({ description: `Add the numbers of part ${part}`, status: 'pending' })),
      }),
    };
  return { content: JSON.stringify({ need_replan: false, reason: 'on track', new_steps: [] }) };
}

/**
 * Bundles crash-child.ts once (esbuild, the compiler tsx uses) into node_modules/.cache so its packages resolve from
 * the project: a child then starts in ~0.6 s instead of ~1.3 s under tsx, which matters at ~50 starts a suite.
 */
export async function buildChild(): Promise<string> {
  const outfile = join(repository, 'node_modules', '.cache', `stageloop-crash-${process.pid}`, 'crash-child.mjs');
  await build({
    entryPoints: [join(repository, 'tests/durable/crash-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly lines: string[];
  stderr: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Calls `listener` with every stdout line from now on. */
  onLine(listener: (line: string) => void): void;
  /** Resolves with the first line (already seen or still to come) that passes `test`. */
  waitForLine(test: (line: string) => boolean): Promise<string>;
  kill(signal: NodeJS.Signals): void;
}

export function spawnChild(script: string, config: ChildConfig): Child {
  const child = spawn(process.execPath, [script, JSON.stringify(config)], { cwd: repository, stdio: 'pipe' });
  const lines: string[] = [];
  const listeners: Array<(line: string) => void> = [];
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    const pieces = (partial + text).split('\n');
    partial = pieces.pop() ?? '';
    for (const line of pieces) {
      lines.push(line);
      for (const listener of [...listeners]) listener(line);
    }
  });
  const handle: Child = {
    process: child,
    lines,
    stderr: '',
    // 'close', not 'exit': by then stdout has been read to its end.
    exited: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal }))),
    onLine: (listener) => void listeners.push(listener),
    waitForLine(test) {
      const seen = lines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        listeners.push((line) => test(line) && resolve(line));
        void handle.exited.then(() =>
          reject(new Error(`the child exited before the line awaited; stderr: ${handle.stderr}`)),
        );
      });
    },
    kill: (signal) => void (child.exitCode === null && child.signalCode === null && child.kill(signal)),
  };
  child.stderr.setEncoding('utf8').on('data', (text: string) => void (handle.stderr += text));
  return handle;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
