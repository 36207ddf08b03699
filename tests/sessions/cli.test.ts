// Sessions as a user meets them: real `stageloop` processes, one store file per test, the offline model and a
// loopback model server.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli } from '../support/run-cli.js';

const sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
let home = '';
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'stageloop-session-cli-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { STAGELOOP_HOME: home, ...env });
const noStackTrace = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);

describe('stageloop run --session (offline)', () => {
  it('"Add 10 to that" uses the previous answer, and a third process still knows the session', async () => {
    const first = await cli(['run', '-q', '--session', 's1', 'What is 12 * 12?']);
    expect(first.stdout.trim()).toBe('12 * 12 = 144');
    const second = await cli(['run', '-q', '--session', 's1', 'Add 10 to that']);
    expect(second.stdout.trim()).toBe('144 + 10 = 154');
    const third = await cli(['run', '-q', '--session', 's1', 'divide that by 2']);
    expect(third.stdout.trim()).toBe('154 / 2 = 77');
    // Another session knows nothing of it.
    const other = await cli(['run', '-q', '--session', 's2', 'Add 10 to that']);
    expect(other.stdout).not.toContain('154');
  });

  it('a session name with path characters is one line, exit 2, and creates no store', async () => {
    const result = await cli(['run', '--session', '../etc', 'What is 1 + 1?']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'stageloop: session name "../etc" has path characters: use letters, digits, ".", "_" or "-" (at most 64), e.g. --session work-notes',
    );
    expect(existsSync(join(home, 'stageloop.db'))).toBe(false);
  });

  it('--user without --session is a usage error', async () => {
    const result = await cli(['run', '--user', 'bob', 'What is 1 + 1?']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('stageloop: --user names whose session a run is a turn of: add --session NAME');
  });

  it('a corrupted history row: one warning line, the turn still answers, the row is kept', async () => {
    await cli(['run', '-q', '--session', 's1', 'What is 12 * 12?']);
    await cli(['run', '-q', '--session', 's1', 'What is 2 * 3?']);
    const database = new sqlite(join(home, 'stageloop.db'));
    database.prepare("UPDATE session_turns SET answer = x'00ff' WHERE seq = 2").run();
    database.close();
    const result = await cli(['run', '-q', '--session', 's1', 'Add 10 to that']);
    expect(result.code).toBe(0);
    // Turn 2 cannot be read, so "that" is turn 1's 144.
    expect(result.stdout.trim()).toBe('144 + 10 = 154');
    const warnings = result.stderr.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^stageloop: warning: session "s1" of user "default" in store .+stageloop\.db: turn 2: its task or answer is not text; the row is kept as it is/,
    );
    const check = new sqlite(join(home, 'stageloop.db'));
    expect(check.prepare('SELECT count(*) FROM session_turns').pluck().get()).toBe(3);
    check.close();
  });
});

describe('stageloop facts', () => {
  it('set, list, delete; an unknown session or key on delete is one line, exit 2, nothing lost', async () => {
    expect((await cli(['facts', 'set', 'unit', 'centimetres', '--session', 's1'])).code).toBe(0);
    const listed = await cli(['facts', 'list', '--session', 's1', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ key: 'unit', value: 'centimetres', sourceRun: 'cli' }]);
    const unknownSession = await cli(['facts', 'delete', 'unit', '--session', 'nope']);
    expect(unknownSession.code).toBe(2);
    expect(unknownSession.stderr.trim()).toMatch(
      /^stageloop: there is no session "nope" of user "default" in .+: nothing was deleted \(check --session and --user\)$/,
    );
    const otherUser = await cli(['facts', 'delete', 'unit', '--session', 's1', '--user', 'bob']);
    expect(otherUser.code).toBe(2);
    const unknownKey = await cli(['facts', 'delete', 'colour', '--session', 's1']);
    expect(unknownKey.stderr.trim()).toBe(
      'stageloop: session "s1" of user "default" has no fact "colour": nothing was deleted; "./bin/stageloop.js facts list --session s1" shows its facts',
    );
    noStackTrace(unknownKey.stderr);
    expect((await cli(['facts', '--session', 's1'])).stdout).toMatch(/^unit: centimetres {2}\(run cli, /);
    expect((await cli(['facts', 'delete', 'unit', '--session', 's1'])).code).toBe(0);
    expect(JSON.parse((await cli(['facts', 'list', '--session', 's1', '--json'])).stdout)).toEqual([]);
  });
});

describe('sessions against a loopback model server', () => {
  const loopback = useLoopbackServer();
  const serverArgs = () => ['--base-url', loopback.server.url, '--model', 'test-model'];
  const systemOf = (index: number) => loopback.server.requests[index]!.body.messages[0]!.content ?? '';

  it('a fact remembered in one run and the earlier turn are in the next run’s context; another user sees neither', async () => {
    loopback.server.replyWithToolCalls([
      { name: 'remember', arguments: JSON.stringify({ key: 'unit', value: 'centimetres' }) },
    ]);
    loopback.server.replyWith({ content: 'Noted: I will use centimetres.' });
    const first = await cli(
      ['run', '-q', '--session', 'work', ...serverArgs(), 'Please use centimetres from now on.'],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(first.stdout.trim()).toBe('Noted: I will use centimetres.');
    expect(loopback.server.requests[0]!.body.tools?.map((tool) => tool.function.name)).toContain('remember');
    loopback.server.replyWith({ content: 'It is 30 centimetres.' });
    await cli(['run', '-q', '--session', 'work', ...serverArgs(), 'How long is a ruler?'], {
      OPENAI_API_KEY: 'sk-test',
    });
    const second = systemOf(2);
    expect(second).toMatch(
      /Facts saved in this session [^\n]*\n<<data-[a-z]{16} session facts>>\n- unit: centimetres\n<<\/data-[a-z]{16}>>/,
    );
    // The earlier turn is a user and an assistant message, not text in the system prompt.
    expect(
      loopback.server.requests[2]!.body.messages.slice(1).map((message) => [message.role, message.content]),
    ).toEqual([
      ['user', 'Please use centimetres from now on.'],
      ['assistant', expect.stringMatching(/^Tool results this answer relied on:\n- remember\(/)],
      ['assistant', 'Noted: I will use centimetres.'],
      ['user', 'How long is a ruler?'],
    ]);
    const facts = JSON.parse((await cli(['facts', '--json', '--session', 'work'])).stdout) as Array<{
      sourceRun: string;
    }>;
    // The fact names the run that remembered it, and that run is recorded in the same store.
    const runs = new sqlite(join(home, 'stageloop.db'));
    expect(runs.prepare('SELECT input FROM runs WHERE run_id = ?').pluck().get(facts[0]!.sourceRun)).toContain(
      'Please use centimetres',
    );
    runs.close();
    loopback.server.replyWith({ content: 'No idea.' });
    await cli(['run', '-q', '--session', 'work', '--user', 'bob', ...serverArgs(), 'Which unit do I use?'], {
      OPENAI_API_KEY: 'sk-test',
    });
    expect(systemOf(3)).not.toContain('centimetres');
  });
  it('nothing of the conversation is lost: a turn whose model fails is kept with its status and partial answer, and the next turn sees it', async () => {
    loopback.server.replyWithToolCalls([{ name: 'calculator', arguments: JSON.stringify({ expression: '6 * 7' }) }]);
    loopback.server.fail(400, { message: 'the model is gone' });
    const failed = await cli(['run', '--json', '--session', 'lost', ...serverArgs(), 'What is 6 * 7?'], {
      OPENAI_API_KEY: 'sk-test',
    });
    expect(failed.code).not.toBe(0);
    const result = JSON.parse(failed.stdout.trim().split('\n').at(-1)!) as { status: string; answer: string | null };
    expect(result.status).toBe('failed');
    const database = new sqlite(join(home, 'stageloop.db'));
    const row = database.prepare("SELECT task, answer, status FROM session_turns WHERE session = 'lost'").get() as {
      task: string;
      answer: string;
      status: string;
    };
    database.close();
    expect(row).toEqual({ task: 'What is 6 * 7?', answer: result.answer ?? '', status: 'failed' });
    loopback.server.replyWith({ content: 'It was 42.' });
    const next = await cli(['run', '-q', '--session', 'lost', ...serverArgs(), 'What was the result?'], {
      OPENAI_API_KEY: 'sk-test',
    });
    expect(next.stdout.trim()).toBe('It was 42.');
    const seen = loopback.server.requests
      .at(-1)!
      .body.messages.map((message) => `${message.role}: ${message.content ?? ''}`);
    expect(seen).toContain('user: What is 6 * 7?');
    expect(seen.some((line) => line.startsWith('assistant: (This turn was failed'))).toBe(true);
  });
});
