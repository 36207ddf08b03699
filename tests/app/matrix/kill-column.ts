// The feature matrix's kill -9 column (issues 22 and 40). Every row's run gets a write tool, the MCP server `ledger`
// (tests/durable/effects-mcp-server.ts: append_line writes "KEY\tTEXT" to a file, KEY the call's idempotency key),
// which the scripted model calls first in each conversation (each agent's, plan step's and session turn's). The run is
// killed inside its writes (once one's line is in the file: the server never answers); resumed, it waits with them in
// doubt (kind `in_doubt`, exit 4); a person approves (the write runs again, under the same key) or rejects each ("it
// did run"); that process is killed again while the answering model call is held (after the write's result), and a
// resume ends as the row's uninterrupted run. The file has every write once, twice only where a person approved a
// re-run, and the replay is identical.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { repositoryRoot } from '../../support/mcp-servers.js';
import { startCli } from '../../support/run-cli.js';
import { waitFor } from '../../server/serve-support.js';
import {
  killedAt,
  outcomeOf,
  parseJson,
  rowContext,
  runArgs,
  type Outcome,
  type Paused,
  type Row,
  type RowContext,
} from './matrix-harness.js';

const ledgerTool = 'ledger__append_line';
const rejection = 'it did run; the result was appended';

/** The config file's ledger server: its file and the writes it stops inside come from the environment of the run. */
const ledgerServer = {
  command: process.execPath,
  args: ['--import', 'tsx', join(repositoryRoot, 'tests/durable/effects-mcp-server.ts')],
  cwd: repositoryRoot,
  env: { EFFECTS_FILE: '${LEDGER_FILE}', EFFECTS_INSIDE_TEXT: '${LEDGER_HOLD}' },
};

/** The row's flags with the ledger in its config file (and in every agent's tools); a row that sets no taint policy
 * runs with it off, so that each conversation's write runs after an earlier one's MCP result. */
function withLedger(flags: string[], context: RowContext): string[] {
  const at = flags.indexOf('--mcp-config');
  const config = (at === -1 ? {} : JSON.parse(readFileSync(flags[at + 1]!, 'utf8'))) as {
    mcpServers?: Record<string, unknown>;
    agents?: Record<string, { tools?: string[] }>;
  };
  const agents = Object.entries(config.agents ?? {}).map(([name, agent]) => [
    name,
    { ...agent, ...(Array.isArray(agent.tools) && { tools: [...agent.tools, ledgerTool] }) },
  ]);
  const file = context.file('ledger-config.json', {
    ...config,
    mcpServers: { ...config.mcpServers, ledger: ledgerServer },
    ...(config.agents !== undefined && { agents: Object.fromEntries(agents) }),
  });
  const others = at === -1 ? flags : flags.filter((_flag, index) => index !== at && index !== at + 1);
  return [...others, '--mcp-config', file, ...(flags.includes('--taint-policy') ? [] : ['--taint-policy', 'off'])];
}

/** The idempotency key of every line the ledger wrote, in order. */
function ledgerKeys(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t')[0]!);
}

type Decided = Paused & Outcome & { pending: Array<{ id: string; tool: string; kind: string }> };

/** The person's decisions on the calls in doubt, each in a process of its own (approve: all at once); the process that
 * goes on is killed once the answering call is held, and the run resumed. */
async function decideAndKill(context: RowContext, paused: Decided, approve: boolean, what: string) {
  const commands = approve
    ? [['approve', paused.runId, '--json']]
    : paused.pending.map((call) => ['reject', paused.runId, call.id, '--message', rejection, '--json']);
  const { held } = context.model.closeGate();
  try {
    for (const args of commands) {
      const started = startCli(args, context.env);
      const first = await Promise.race([held.then(() => 'held'), started.done.then(() => 'ended')]);
      if (first === 'held') {
        await killedAt(started, held, `${what}: ${args[0]}`);
        context.model.openGate();
        return await context.cli(['resume', paused.runId, '--json']);
      }
      const ended = await started.done;
      if (ended.code !== 4) throw new Error(`${what}: ${args[0]} ended (exit ${ended.code}): ${ended.stderr}`);
    }
    throw new Error(`${what}: no decision went on to the answer`);
  } finally {
    context.model.openGate();
  }
}

/** The cell: `approve` decides whether the person approves the re-runs or rejects them. */
export async function killInsideWriteThenResume(
  row: Row & { expected: Outcome },
  env: Record<string, string>,
  approve: boolean,
): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-matrix-kill-'));
  const file = join(folder, 'ledger.txt');
  // A model (and folder) of its own: its gate holds calls, which would stall the row's other cells.
  const context = await rowContext({ ...env, LEDGER_FILE: file, LEDGER_HOLD: '' }, folder);
  const what = `${row.name} / kill -9`;
  try {
    const args = runArgs({ ...row, flags: (own, cell) => withLedger(row.flags(own, cell), own) }, context, 'resume');
    const started = startCli(
      args.filter((arg) => arg !== '--json'),
      { ...context.env, LEDGER_HOLD: '*' },
    );
    // The ledger writes its line, then never answers: the process is inside the write.
    const inside = waitFor(async () => (ledgerKeys(file).length > 0 ? true : undefined), 'a write', 120_000);
    const killed = await killedAt(
      started,
      inside.then(() => undefined),
      `${what}: the run`,
    );
    const runId = /run ([0-9a-f]{32})/.exec(killed.stderr)![1]!;
    const written = new Set(ledgerKeys(file));

    const resumed = await context.cli(['resume', runId, '--json']);
    expect(resumed.stderr).not.toMatch(/--force|another shape/);
    const paused = parseJson<Decided>(resumed, `${what}: resume`);
    expect([resumed.code, paused.status]).toEqual([4, 'interrupted']);
    expect(paused.pending.length, readFileSync(file, 'utf8')).toBeGreaterThanOrEqual(written.size);
    for (const call of paused.pending) expect(call).toMatchObject({ kind: 'in_doubt', tool: ledgerTool });

    const last = await decideAndKill(context, paused, approve, what);
    expect(outcomeOf(parseJson<Outcome>(last, `${what}: the last resume`))).toEqual(row.expected);
    await row.after?.(context, 'resume');
    const replay = await context.cli(['replay', runId]);
    expect(replay.stdout).toMatch(/^identical/);

    // Each write once; one cut off by the kill twice only when a person approved its re-run (under one key).
    const keys = ledgerKeys(file);
    expect(written.size).toBeGreaterThan(0);
    expect(keys).not.toContain('none');
    for (const key of new Set(keys))
      expect(keys.filter((each) => each === key).length, `${what}: ${key}`).toBe(approve && written.has(key) ? 2 : 1);
  } finally {
    await context.model.close();
  }
}
