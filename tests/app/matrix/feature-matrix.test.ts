// The feature x lifecycle matrix (issue 22): every feature a recipe carries (rows) through every verb that continues,
// shows or replays a run (columns), through the real CLI, `stageloop serve` and a `stageloop worker`, each ending
// as the row's uninterrupted run does. A new feature is a new entry in `rows`; a new verb a new entry in `columns`.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnvironment, cliPath } from '../../support/run-cli.js';
import { jsonPost, startTestServe, waitForStatus, type TestServe } from '../../server/serve-support.js';
import { newLogFile, stdioTestServer } from '../../support/mcp-servers.js';
import { runRedisTests, startRedis, type RedisInstance } from '../../workers/redis-server.js';
import {
  approveUntilDone,
  outcomeOf,
  parseJson,
  pausedRun,
  rowContext,
  runArgs,
  type Outcome,
  type Row,
  type RowContext,
} from './matrix-harness.js';
import { startFailingModel } from './scripted-model.js';
import { gateContextRows, pausingPolicy } from './gate-rows.js';
import { workspaceRows } from './workspace-rows.js';
import { subPlanRows } from './sub-plan-rows.js';
import { killInsideWriteThenResume } from './kill-column.js';
import { elicitationRows } from './elicitation-rows.js';

const mcpLog = newLogFile();
const sharedEnv = { MCP_TEST_LOG: mcpLog, FALLBACK_KEY: 'sk-fallback' };
const answered: Outcome = { status: 'completed', answer: 'The answer is 84.' };
const schema = { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] };
const failing = await startFailingModel();

const sessionFlags = (cell: string) => ['--session', `s-${cell.replace(/[^a-z0-9]+/gi, '-')}`];
/** A session's next turn sees the saved one: 84 + 10. */
const nextTurnSees84 = async (context: RowContext, cell: string) => {
  const next = await context.cli([
    'run',
    '--json',
    '--base-url',
    context.model.url,
    '--model',
    'test-model',
    ...sessionFlags(cell),
    'Add 10 to that',
  ]);
  expect(parseJson<Outcome>(next, 'the next turn').answer).toBe('The answer is 94.');
};

/** The MCP test server with its write tool (send_message), as the row's config file. */
function mcpWriteConfig(context: RowContext): string {
  const { name: _name, ...server } = stdioTestServer('${MCP_TEST_LOG}', 'test', ['--with-write-tool']);
  return context.file('mcp-write.json', { mcpServers: { files: server } });
}

interface MatrixRow extends Row {
  expected: Outcome;
}

const rows: MatrixRow[] = [
  { name: 'plain', flags: () => [], expected: answered },
  { name: 'session', flags: (_context, cell) => sessionFlags(cell), after: nextTurnSees84, expected: answered },
  { name: 'approvals', flags: () => [], approvalFlags: ['--approve-tools', 'calculator'], expected: answered },
  {
    name: 'output schema',
    flags: (context) => ['--output-schema', context.file('schema.json', schema)],
    expected: { ...answered, output: { result: 84 } },
  },
  { name: 'max tokens', flags: () => ['--max-tokens', '50000'], expected: answered },
  { name: 'injection guard', flags: () => ['--guard', 'injection'], expected: answered },
  { name: 'loop limit', flags: () => ['--loop-limit', '3'], expected: answered },
  {
    name: 'mcp server',
    flags: (context) => {
      const { name: _name, ...server } = stdioTestServer('${MCP_TEST_LOG}');
      return ['--mcp-config', context.file('mcp.json', { mcpServers: { files: server } })];
    },
    task: 'Please echo 84',
    expected: answered,
  },
  {
    name: 'taint policy',
    // An MCP result taints the context, so the MCP write tool waits (`ask`, the default) with no approval flag: the
    // approve, reject and server cells are that pause. Cells that must not pause (run, kill -9, worker: no terminal)
    // take `refuse`: the write comes back refused, and the answer is the same echoed 84.
    flags: (context, cell) => ['--mcp-config', mcpWriteConfig(context), '--taint-policy', pausingPolicy(cell)],
    approvalFlags: [],
    task: 'Please echo 84, then send it to ops',
    expected: answered,
  },
  {
    name: 'fallback model',
    // The recipe's base URL fails (503); the config file's fallback server answers.
    flags: (context) => [
      '--base-url',
      failing.url,
      '--mcp-config',
      context.file('fallback.json', {
        fallback: [{ model: 'test-model', baseUrl: context.model.url, apiKey: '${FALLBACK_KEY}' }],
      }),
    ],
    expected: answered,
  },
  {
    name: 'agents',
    // The coordinator hands the task to a specialist agent; the call to the agent is the one that waits for a person.
    flags: (context) => [
      '--agent',
      'coordinator',
      '--mcp-config',
      context.file('agents.json', {
        agents: {
          coordinator: {
            description: 'Hands tasks on.',
            instructions: 'Hand the task to the specialist.',
            tools: [],
            agents: ['specialist'],
          },
          specialist: { description: 'Does arithmetic.', instructions: 'Use the calculator.', tools: ['calculator'] },
        },
      }),
    ],
    approvalFlags: ['--approve-tools', 'specialist'],
    expected: answered,
  },
  {
    name: 'handoff',
    // The triage agent hands the rest of the run to the specialist; the specialist's calculator call waits for a person.
    flags: (context) => [
      '--agent',
      'triage',
      '--mcp-config',
      context.file('handoff.json', {
        agents: {
          triage: {
            description: 'Routes tasks.',
            instructions: 'Hand the task to the specialist.',
            tools: [],
            handoffs: ['specialist'],
          },
          specialist: { description: 'Does arithmetic.', instructions: 'Use the calculator.', tools: ['calculator'] },
        },
      }),
    ],
    approvalFlags: ['--approve-tools', 'calculator'],
    expected: answered,
  },
  {
    name: 'plan graph',
    // Plan-execute-replan with two steps that need nothing from each other: they run side by side (both calculator
    // calls wait for a person together, and both are held when the run is killed), and the composer adds them up.
    flags: () => ['--pipeline', 'plan-execute-replan'],
    waits: 2,
    expected: answered,
  },
  ...subPlanRows(answered),
  {
    name: 'taint + approval',
    // The tool gate: the MCP write after MCP text is held for the approval flag and the taint policy at once (one
    // pause); cells that must not pause take `refuse`, as in the taint policy row.
    flags: (context, cell) => ['--mcp-config', mcpWriteConfig(context), '--taint-policy', pausingPolicy(cell)],
    approvalFlags: ['--approve-tools', 'files__send_message'],
    task: 'Please echo 84, then send it to ops',
    expected: answered,
  },
  ...gateContextRows,
  ...elicitationRows(answered),
  {
    name: 'gate: plan side by side + MCP',
    // With an MCP server configured (the default taint policy in force), both steps' calls still wait for the
    // approval flag: the gate holds them in each step, whatever stage shows them.
    flags: (context) => ['--pipeline', 'plan-execute-replan', '--mcp-config', mcpWriteConfig(context)],
    waits: 2,
    expected: answered,
  },
  ...workspaceRows(answered),
  {
    name: 'session + approvals + output schema',
    flags: (context, cell) => [...sessionFlags(cell), '--output-schema', context.file('schema.json', schema)],
    approvalFlags: ['--approve-tools', 'calculator'],
    after: nextTurnSees84,
    expected: { ...answered, output: { result: 84 } },
  },
];

interface Shared {
  serve: TestServe;
  redis?: RedisInstance;
}
const shared = {} as Shared;

type Column = (row: MatrixRow, context: RowContext) => Promise<void>;
const columns: Record<string, Column> = {
  async 'uninterrupted run, then show'(row, context) {
    const run = await context.cli(runArgs(row, context, 'run'));
    const result = parseJson<Outcome & { runId: string }>(run, 'run');
    expect(outcomeOf(result)).toEqual(row.expected);
    await row.after?.(context, 'run');
    const show = await context.cli(['show', result.runId]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/\b84\b/);
  },
  async 'pause, approve in a new process, replay identical'(row, context) {
    const paused = await pausedRun(row, context, 'approve');
    const answer = row.answer && [paused.pending[0]!.id, '--answer', JSON.stringify(row.answer)];
    const { run, result, rounds } = await approveUntilDone(context, paused.runId, answer);
    expect(rounds).toBe(row.rounds ?? 1);
    expect(run.stderr).not.toMatch(/--force|another shape/);
    expect(outcomeOf(result)).toEqual(row.expected);
    await row.after?.(context, 'approve');
    const replay = await context.cli(['replay', paused.runId]);
    expect(replay.stdout).toMatch(/^identical/);
    expect(replay.stdout).not.toMatch(/diverg/i);
  },
  async 'pause, reject in a new process'(row, context) {
    const paused = await pausedRun(row, context, 'reject');
    // Every waiting call is rejected, each in a process of its own (steps side by side wait in one pause).
    let result: Outcome = { status: 'interrupted', answer: null };
    for (const call of paused.pending)
      result = parseJson<Outcome>(
        await context.cli(['reject', paused.runId, call.id, '--message', 'not today', '--json']),
        'reject',
      );
    expect(result.status).toBe('completed');
    expect(result.output !== undefined).toBe(row.expected.output !== undefined);
  },
  async 'kill -9 inside a write and after it, decide, resume, replay identical'(row) {
    // Rows take turns: a person approves the re-runs of the writes in doubt, or rejects them.
    await killInsideWriteThenResume(row, sharedEnv, rows.indexOf(row) % 2 === 0);
  },
  async "the server's decisions endpoint"(row, context) {
    const paused = await pausedRun(row, context, 'server', ['--store', shared.serve.storeFile]);
    const decided = await shared.serve.call(
      `/v1/runs/${paused.runId}/decisions`,
      jsonPost({
        decisions: paused.pending.map((call) => ({ callId: call.id, approve: true, arguments: row.answer })),
      }),
    );
    expect(decided.status).toBe(202);
    const view = (await waitForStatus(shared.serve, paused.runId, ['completed', 'stopped', 'failed'])) as unknown as {
      run: { outcome: { result: Outcome } };
    };
    expect(outcomeOf(view.run.outcome.result)).toEqual(row.expected);
    row.answered?.(context, 'server');
  },
  async 'a worker picks up a submitted run'(row, context) {
    if (shared.redis === undefined) return;
    const args = runArgs(row, context, 'worker');
    const submitted = await context.cli(['submit', '--redis', shared.redis.url, ...args.slice(1)]);
    if (row.submitted) return row.submitted(context, submitted, ['--store', shared.redis.url]);
    // (The worker saves a session turn in its own store: the next turn is the approve and resume cells' check.)
    expect(outcomeOf(parseJson<Outcome>(submitted, 'submit'))).toEqual(row.expected);
  },
};

let worker: ChildProcess | undefined;
beforeAll(async () => {
  shared.serve = await startTestServe({ OPENAI_API_KEY: 'sk-test', ...sharedEnv });
  if (!runRedisTests) return;
  shared.redis = await startRedis();
  worker = spawn(process.execPath, [cliPath, 'worker', '--redis', shared.redis.url, '--concurrency', '2'], {
    env: cleanEnvironment({ OPENAI_API_KEY: 'sk-test', ...sharedEnv }),
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    worker!.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('taking runs from')) resolve();
    });
    worker!.once('exit', (code) => reject(new Error(`the worker exited (${code}): ${output}`)));
  });
}, 60_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker!.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await Promise.all([shared.serve?.close(), shared.redis?.stop(), failing.close()]);
});

describe.each(rows)('$name', (row) => {
  let context: RowContext;
  beforeAll(async () => {
    context = await rowContext(sharedEnv);
  });
  afterAll(() => context?.model.close());
  for (const [verb, column] of Object.entries(columns)) {
    // The kill -9 cell is six processes in turn (run, resume, decide, resume, replay, ...): more time on a loaded machine.
    const own = row.cells?.[verb];
    it.concurrent(
      verb,
      () => (own ? own(context) : column(row, context)),
      verb.startsWith('kill -9') ? 300_000 : 120_000,
    );
  }
});
