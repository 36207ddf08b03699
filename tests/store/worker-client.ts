// Starts store-worker.ts in a real child process and talks to it: send(command) resolves with its answer.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { WorkerAnswer, WorkerCommand } from './store-worker.js';

const workerPath = fileURLToPath(new URL('./store-worker.ts', import.meta.url));

export interface Worker {
  child: ChildProcess;
  pid: number;
  send(command: WorkerCommand): Promise<WorkerAnswer>;
  /** Writes a command without waiting (into a stopped process's pipe, say); `next()` reads its answer. */
  write(command: WorkerCommand): void;
  next(): Promise<WorkerAnswer>;
  exited: Promise<void>;
  stop(): void;
}

/** Whether a worker can run as this uid: root can start one as another user only if that user can read our files. */
export function canRunAs(uid: number): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(workerPath)}, 4)`], {
    uid,
    gid: uid,
  });
  return probe.status === 0;
}

export function startWorker(user: { uid?: number; gid?: number } = {}): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', workerPath], {
    stdio: ['pipe', 'pipe', 'inherit'],
    ...user,
  });
  const answers: WorkerAnswer[] = [];
  const waiting: Array<(answer: WorkerAnswer) => void> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const answer = JSON.parse(line) as WorkerAnswer;
    const waiter = waiting.shift();
    if (waiter) waiter(answer);
    else answers.push(answer);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = () => {
    const ready = answers.shift();
    return ready ? Promise.resolve(ready) : new Promise<WorkerAnswer>((resolve) => waiting.push(resolve));
  };
  const write = (command: WorkerCommand) => void child.stdin!.write(`${JSON.stringify(command)}\n`);
  return {
    child,
    pid: child.pid!,
    write,
    next,
    send(command) {
      write(command);
      return next();
    },
    exited,
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
