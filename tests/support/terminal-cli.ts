// Runs the real `stageloop` command under a pseudo-terminal (python3's pty module), for the prompts a person answers
// at a terminal (approvals, spent budgets), or to kill it -9 while it waits at one.
import { execFile, spawn } from 'node:child_process';
import { cleanEnvironment, cliPath } from './run-cli.js';

/** Python that reads the terminal's output a chunk at a time into `chunk` until the command closes it; `body` (indented
 * four spaces) handles each chunk. */
const eachChunk = (body: string) => `
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
${body}`;

/** Runs the CLI under a pseudo-terminal (python3's pty module), answering each prompt when it appears. */
export function underTerminal(
  args: string[],
  answers: Array<[string, string]>,
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  const script = `
import os, pty, sys, json
answers = json.loads(sys.argv[1]); args = json.loads(sys.argv[2])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(args[0], args)
output = b''${eachChunk('    output += chunk')}
    if answers and answers[0][0].encode() in output.split(b'\\x00')[-1]:
        os.write(fd, (answers.pop(0)[1] + '\\n').encode())
        output += b'\\x00'
_, status = os.waitpid(pid, 0)
sys.stdout.write(json.dumps({'code': os.waitstatus_to_exitcode(status), 'output': output.decode(errors='replace')}))
`;
  return new Promise((resolve, reject) => {
    execFile(
      'python3',
      ['-c', script, JSON.stringify(answers), JSON.stringify([process.execPath, cliPath, ...args])],
      { env: cleanEnvironment(env), timeout: 60_000 },
      (error, stdout) => {
        if (error) reject(error);
        else resolve(JSON.parse(stdout) as { code: number; output: string });
      },
    );
  });
}

/** Starts the CLI under a pseudo-terminal and kills it (SIGKILL) once `marker` (a person's prompt) shows; resolves with
 * its output. Fails when the command ends before the marker. */
export function killedAtPrompt(args: string[], marker: string, env: Record<string, string> = {}): Promise<string> {
  const script = `
import os, pty, sys, json
pid, fd = pty.fork()
if pid == 0:
    args = json.loads(sys.argv[1]); os.execvp(args[0], args)
sys.stdout.write('PID %d\\n' % pid); sys.stdout.flush()${eachChunk("    sys.stdout.write(chunk.decode(errors='replace')); sys.stdout.flush()")}
os.waitpid(pid, 0)
`;
  const child = spawn('python3', ['-c', script, JSON.stringify([process.execPath, cliPath, ...args])], {
    env: cleanEnvironment(env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  let killed = false;
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () =>
      killed ? resolve(output) : reject(new Error(`the command ended before ${marker}:\n${output}`)),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (killed || !output.includes(marker)) return;
      killed = true;
      process.kill(Number(/^PID (\d+)/.exec(output)![1]), 'SIGKILL');
    });
  });
}
