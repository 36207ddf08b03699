// `stageloop chat` in a real pseudo-terminal (python3's pty): turns, a Ctrl-C that cancels a turn only, Ctrl-D.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { cleanEnvironment, cliPath } from '../support/run-cli.js';

const driver = fileURLToPath(new URL('./pty-driver.py', import.meta.url));
type Step = { expect: string; timeout?: number } | { send: string };

function inTerminal(
  steps: Step[],
  args: string[],
  env: Record<string, string>,
): Promise<{ output: string; code: number; failed: string | null }> {
  const child = spawn('python3', [driver, JSON.stringify(steps), process.execPath, cliPath, ...args], {
    env: cleanEnvironment(env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve) => child.on('close', () => resolve(JSON.parse(text))));
}

let home = '';
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'stageloop-chat-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('stageloop chat', () => {
  const loopback = useLoopbackServer();

  it('two turns, a Ctrl-C that cancels the turn in flight and keeps the session, then Ctrl-D', async () => {
    loopback.server.replyWith({ content: 'Hello, Ada.' });
    loopback.server.hang();
    loopback.server.replyWith({ content: 'Your name is Ada.' });
    const env = { STAGELOOP_HOME: home, OPENAI_BASE_URL: loopback.server.url, OPENAI_MODEL: 'test-model' };
    const session = await inTerminal(
      [
        { expect: 'talk> ' },
        { send: 'My name is Ada.\r' },
        { expect: 'Hello, Ada.' },
        { expect: 'talk> ' },
        { send: 'Tell me a very long story.\r' },
        { expect: '[1] think' },
        { send: '\u0003' },
        { expect: 'turn cancelled' },
        { expect: 'talk> ' },
        { send: 'What is my name?\r' },
        { expect: 'Your name is Ada.' },
        { expect: 'talk> ' },
        { send: '/history\r' },
        { expect: '3. What is my name?' },
        { expect: 'talk> ' },
        { send: '\u0004' },
      ],
      ['chat', '--session', 'talk'],
      env,
    );
    expect(session.failed).toBeNull();
    expect(session.code).toBe(0);
    // The cancelled turn is kept with its status; the turn after it saw the first one and knows the second was cancelled.
    expect(session.output).toContain('1. My name is Ada. → Hello, Ada.');
    expect(session.output).toMatch(/2\. Tell me a very long story\. → .*\(cancelled\)/s);
    const last = loopback.server.requests
      .at(-1)!
      .body.messages.map((message) => `${message.role}: ${message.content ?? ''}`)
      .join('\n');
    expect(last).toContain('user: My name is Ada.\nassistant: Hello, Ada.');
    expect(last).toContain('user: Tell me a very long story.\nassistant: (This turn was cancelled');
  });

  it('/facts, /new and /exit', async () => {
    const env = { STAGELOOP_HOME: home };
    const session = await inTerminal(
      [
        { expect: 'notes> ' },
        { send: 'What is 6 * 7?\r' },
        { expect: '6 * 7 = 42' },
        { expect: 'notes> ' },
        { send: '/facts\r' },
        { expect: '(no facts)' },
        { send: '/new\r' },
        { expect: 'new session chat-' },
        { send: '/history\r' },
        { expect: '(no turns yet)' },
        { send: '/exit\r' },
      ],
      ['chat', '--session', 'notes'],
      env,
    );
    expect(session.failed).toBeNull();
    expect(session.code).toBe(0);
  });
});
