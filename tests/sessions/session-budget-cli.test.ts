// Session budgets as a user meets them: real `stageloop` processes, one store file per test, the offline model and a
// loopback model server. The observe-plan-act document's "Context & Token Budget" boundary "caps cost per session",
// and its boundaries are "validated at every loop entry point, blocking LLM calls".
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli } from '../support/run-cli.js';
import { underTerminal } from '../support/terminal-cli.js';

const sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
const loopback = useLoopbackServer();
let home = '';
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'stageloop-session-budget-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { STAGELOOP_HOME: home, ...env });

interface JsonResult {
  runId: string;
  status: string;
  stopReason?: { kind: string; message: string };
  answer?: string;
  usage: { inputTokens: number; outputTokens: number };
}
const parsed = (stdout: string) => JSON.parse(stdout) as JsonResult;
const tokensOf = (result: JsonResult) => result.usage.inputTokens + result.usage.outputTokens;

/** The session's rows as the store keeps them: what each turn spent, and what folded turns spent. */
function storedTurns(session = 's1'): Array<{ runId: string; tokens: number; costUsd: number; status: string }> {
  const database = new sqlite(join(home, 'stageloop.db'), { readonly: true });
  try {
    return database
      .prepare(
        'SELECT run_id AS runId, tokens, cost_usd AS costUsd, status FROM session_turns WHERE session = ? ORDER BY seq',
      )
      .all(session) as Array<{ runId: string; tokens: number; costUsd: number; status: string }>;
  } finally {
    database.close();
  }
}

describe('--session-max-tokens (offline model)', { timeout: 180_000 }, () => {
  it('observe-plan-act "caps cost per session": the session keeps its turns\' tokens; the turn that crosses the cap gets one last answer and stops budget_session; the next makes no model call; each replays identically', async () => {
    const first = parsed((await cli(['run', '--json', '--session', 's1', 'What is 12 * 12?'])).stdout);
    expect(first.status).toBe('completed');
    const cap = String(tokensOf(first) + 1);
    // Turn 2 starts under the cap (421 > 420 spent) and crosses it with its first call: one tools-less answer.
    const crossing = await cli(['run', '--json', '--session', 's1', '--session-max-tokens', cap, 'Add 10 to that']);
    expect(crossing.code).toBe(3);
    const second = parsed(crossing.stdout);
    expect(second.stopReason?.kind).toBe('budget_session');
    expect(second.stopReason?.message).toContain(`the session's token budget of ${cap} is spent`);
    expect(tokensOf(second)).toBeGreaterThan(0);
    // Turn 3: the session is spent before it begins, so not one model call (the early-stop summary makes none either).
    const spent = await cli(['run', '--json', '--session', 's1', '--session-max-tokens', cap, 'Add 10 to that']);
    expect(spent.code).toBe(3);
    const third = parsed(spent.stdout);
    expect(third.stopReason?.kind).toBe('budget_session');
    expect(third.stopReason?.message).toContain('by its earlier turns: this turn makes no model call');
    expect(tokensOf(third)).toBe(0);
    // Kept with the session, durably: a row per turn with what its run spent.
    expect(storedTurns().map((turn) => [turn.runId, turn.tokens, turn.status])).toEqual([
      [first.runId, tokensOf(first), 'completed'],
      [second.runId, tokensOf(second), 'stopped'],
      [third.runId, 0, 'stopped'],
    ]);
    // Without the cap the session goes on: the budget is the run's setting, the totals the session's.
    expect((await cli(['run', '-q', '--session', 's1', 'What is 2 * 3?'])).stdout.trim()).toBe('2 * 3 = 6');
    for (const runId of [second.runId, third.runId]) {
      const replay = await cli(['replay', runId]);
      expect(replay.stdout + replay.stderr).toContain('identical');
      expect(replay.code).toBe(0);
    }
  });

  it('the progress view says so in words', async () => {
    expect((await cli(['run', '-q', '--session', 's1', 'What is 12 * 12?'])).code).toBe(0);
    const result = await cli(['run', '--session', 's1', '--session-max-tokens', '5', 'Add 10 to that']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /budget: the session's token budget is spent \(\d+ tokens of 5 tokens, its earlier turns included\): the turn stops/,
    );
  });

  it.each([
    [['--session-max-tokens=-5'], '--session-max-tokens must be a whole number of tokens, 1 or more, got "-5"'],
    [['--session-max-tokens', 'lots'], '--session-max-tokens must be a whole number of tokens, 1 or more, got "lots"'],
    [['--session-max-tokens', '0'], '--session-max-tokens must be a whole number of tokens, 1 or more, got "0"'],
    [['--session-max-cost', 'abc'], '--session-max-cost must be a positive number of US dollars, got "abc"'],
    [['--session-max-cost=-1'], '--session-max-cost must be a positive number of US dollars, got "-1"'],
  ])('bad input %j is one line naming the flag and the fix, exit 2', async (flags, line) => {
    const result = await cli(['run', '--session', 's1', ...flags, 'What is 1 + 1?']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`stageloop: ${line}`);
  });

  it('a session budget without a session is one line, exit 2', async () => {
    const result = await cli(['run', '--session-max-tokens', '100', 'What is 1 + 1?']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'stageloop: --session-max-tokens caps the turns of a session: add --session NAME',
    );
  });
});

describe('--session-max-cost (loopback model server, priced)', { timeout: 180_000 }, () => {
  it('counts what each turn cost at the model price; the turn after the cap makes no request', async () => {
    const prices = join(home, 'prices.json');
    // $1,000 per million tokens: 15 tokens a reply cost $0.015.
    writeFileSync(prices, JSON.stringify({ models: { 'test-model': { input: 1000, output: 1000 } } }));
    const env = { STAGELOOP_PRICES: prices };
    const model = ['--base-url', loopback.server.url, '--model', 'test-model'];
    loopback.server.replyWith({ content: 'first answer' }).replyWith({ content: 'second answer' });
    const flags = ['run', '--json', '--session', 's1', '--session-max-cost', '0.02', ...model];
    const first = parsed((await cli([...flags, 'one'], env)).stdout);
    expect(first.status).toBe('completed');
    const second = parsed((await cli([...flags, 'two'], env)).stdout);
    expect(second.status).toBe('completed');
    const third = await cli([...flags, 'three'], env);
    expect(third.code).toBe(3);
    expect(parsed(third.stdout).stopReason?.message).toContain("the session's cost budget of $0.02 is spent ($0.0300)");
    expect(loopback.server.requests).toHaveLength(2);
    expect(storedTurns().map((turn) => turn.costUsd)).toEqual([0.015, 0.015, 0]);
  });

  it('--budget-mode ask: a spent session budget asks at a terminal; extended, the turn goes on', async () => {
    const model = ['--base-url', loopback.server.url, '--model', 'test-model'];
    loopback.server.replyWith({ content: 'first answer' }).replyWith({ content: 'after the extension' });
    await cli(['run', '-q', '--session', 's1', ...model, 'one']);
    // A turn of the session with a 10-token cap in ask mode, answering the question when it appears.
    const askedTurn = (task: string, prompt: string, answer: string) =>
      underTerminal(
        ['run', '--session', 's1', '--session-max-tokens', '10', '--budget-mode', 'ask', ...model, task],
        [[prompt, answer]],
        { STAGELOOP_HOME: home },
      );
    const asked = await askedTurn('two', "the session's tokens budget is spent (15 of 10)", '100');
    expect(asked.output).toContain('after the extension');
    expect(asked.code).toBe(0);
    const stopped = await askedTurn('three', "the session's tokens budget is spent (30 of 10)", 's');
    expect(stopped.output).toContain('a person stopped the turn');
    expect(stopped.code).toBe(3);
    expect(loopback.server.requests).toHaveLength(2);
  });
});
