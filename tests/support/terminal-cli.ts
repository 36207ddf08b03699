// Runs the real `stageloop` command under a pseudo-terminal (python3's pty module), for the prompts a person answers
// at a terminal (approvals, spent budgets).
import { execFile } from 'node:child_process';
import { cleanEnvironment, cliPath } from './run-cli.js';

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
output = b''
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    output += chunk
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
