// What the worker tests share: a deterministic loopback model (three tool calls, then an answer built from their
// results), a tool whose side effect is a line in a log file, and worker child processes to kill and pause.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { sendReply, type ChatRequestBody, type ChatServer } from '../support/chat-server.js';

export const stepsPerRun = 3;

/** The answer a run of `task` gets when nothing goes wrong. */
export function expectedAnswer(task: string): string {
  return `done ${task}: ${Array.from({ length: stepsPerRun }, (_, index) => `step ${index + 1} of ${task}`).join(', ')}`;
}

/** The model as a function of the conversation: the same conversation always gets the same reply, from any worker. */
export function serveAgentModel(server: ChatServer, delayMs: number): void {
  server.handle(async (request, response) => {
    const body = request.body as ChatRequestBody;
    const task = body.messages.find((message) => message.role === 'user')?.content ?? '';
    const results = body.messages.filter((message) => message.role === 'tool').map((message) => message.content ?? '');
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const reply =
      results.length < stepsPerRun
        ? {
            toolCalls: [
              {
                id: `call-${results.length + 1}`,
                name: 'record',
                arguments: JSON.stringify({ task, step: results.length + 1 }),
              },
            ],
          }
        : { content: `done ${task}: ${results.join(', ')}` };
    // A worker reports progress, so its runs stream: answer in the form asked for.
    sendReply(request, response, reply);
  }, Number.POSITIVE_INFINITY);
}

/** `record`: appends "pid task step" to the log (the side effect that must not happen twice), after `delayMs`. */
export function recordTools(logFile: string, delayMs: number): ToolRegistry {
  const record = defineTool({
    name: 'record',
    description: 'Records that a step of a task is done.',
    parameters: z.object({ task: z.string(), step: z.number().int() }),
    // The failover tests allow the step in flight at a kill to run once more: it re-runs instead of waiting for a
    // person, as an undeclared write in doubt would (tests/durable/effects-lab.test.ts).
    idempotent: true,
    async execute({ task, step }) {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      appendFileSync(logFile, `${process.pid} ${JSON.stringify(task)} ${step}\n`);
      return `step ${step} of ${task}`;
    },
  });
  return new ToolRegistry([record]);
}

export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves once the worker's output matches `pattern` (at once if it already does); rejects after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void>;
  exited: Promise<void>;
}

const script = fileURLToPath(new URL('./worker-process.ts', import.meta.url));

/** A worker in its own process (`node --import tsx worker-process.ts`, after `nodeFlags`), ready once it says so. */
export async function startWorkerProcess(
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitForOutput = (pattern: RegExp, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        listeners.delete(check);
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const check = () => pattern.test(output) && done();
      const timer = setTimeout(
        () => done(new Error(`the worker did not say ${pattern} within ${timeoutMs} ms; it said:\n${output}`)),
        timeoutMs,
      );
      listeners.add(check);
      void exited.then(() => done(new Error(`the worker exited before saying ${pattern}; it said:\n${output}`)));
      check();
    });
  await waitForOutput(/worker ready/, 20_000);
  return { child, output: () => output, waitForOutput, exited };
}
