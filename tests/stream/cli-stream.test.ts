// The real `stageloop run` against the loopback server streaming slowly: text shows on stderr while the run goes,
// stdout gets the answer exactly once, --events prints one JSON event a line.
import { describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli, startCli } from '../support/run-cli.js';
import { slowReply } from './slow-reply.js';

const loopback = useLoopbackServer();
const answer = 'Seventeen times twenty-three plus four is 395.';

describe('stageloop run with a streaming model', () => {
  it('shows partial answer text under the think line before the run ends; stdout gets the answer once', async () => {
    const reply = slowReply(loopback.server, answer, 40);
    const cli = startCli(['run', '--base-url', loopback.server.url, '--model', 'test-model', 'What is 17 * 23 + 4?']);
    await cli.waitForStderr('Seventeen times');
    expect(cli.child.exitCode).toBeNull();
    expect(reply.sent()).toBeLessThan(reply.total - 3);
    const run = await cli.done;
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${answer}\n`);
    expect(run.stderr).toMatch(new RegExp(`\\[1\\] think\\n    ${answer}\\n`));
    expect(loopback.server.requests[0]!.body.stream).toBe(true);
  });

  it('--events prints every event as one JSON line on stdout, seq without a gap, and no plain answer', async () => {
    loopback.server.streamReply({ content: answer }, { delayMs: 1 });
    const run = await runCli([
      'run',
      '--events',
      '--base-url',
      loopback.server.url,
      '--model',
      'test-model',
      'What is 17 * 23 + 4?',
    ]);
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; type: string; data: { text?: string } });
    expect(events.map((event) => event.seq)).toEqual(events.map((_event, index) => index + 1));
    expect(events.at(-1)!.type).toBe('run_finished');
    expect(
      events
        .filter((event) => event.type === 'text_delta')
        .map((event) => event.data.text)
        .join(''),
    ).toBe(answer);
    expect(run.stderr).not.toContain(answer);
  });

  it('--events with --json is a usage error', async () => {
    const run = await runCli(['run', '--events', '--json', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'stageloop: --events cannot be combined with --json: --events prints only the event lines',
    );
  });
});
