// The feature matrix's row for an MCP server's question (elicitation, issue 42): the test server's ask_number asks a
// person for a number (a form with no required field and a default of 84). A recorded run always has a person: the
// store keeps it until someone answers, so every CLI, server and worker run pauses (exit 4) with a decision of kind
// `elicitation`; a person answers at the terminal, with `approve --answer`, `reject [--cancel]` or over HTTP. Each
// cell's server writes what it was answered to a log of the cell's own: each answer reaches the server once.
import { join } from 'node:path';
import { expect } from 'vitest';
import { readLog, stdioTestServer } from '../../support/mcp-servers.js';
import { startCli } from '../../support/run-cli.js';
import { killedAtPrompt, underTerminal } from '../../support/terminal-cli.js';
import {
  killedAt,
  pausedRun,
  modelFlags,
  outcomeOf,
  parseJson,
  rowContext,
  type Outcome,
  type Paused,
  type Row,
  type RowContext,
} from './matrix-harness.js';

const task = 'Please ask for a number';
/** A terminal's person decides only when the run has approvals on: the calculator's (never called) turns them on. */
const personAtTerminal = ['--approve-tools', 'calculator'];
const prompt = 'allow? [y]es';
const answer = { number: 84, sure: true };

/** The actions the cell's server was answered with, in order (`cancel` first where the run paused on the question). */
const logOf = (context: RowContext, cell: string) => join(context.folder, `asked-${cell}.jsonl`);
const elicited = (context: RowContext, cell: string) =>
  readLog(logOf(context, cell)).filter((entry) => entry.event === 'elicited');
const answersOf = (context: RowContext, cell: string) => elicited(context, cell).map((entry) => entry.action);

function askFlags(context: RowContext, cell: string): string[] {
  const { name: _name, ...server } = stdioTestServer(logOf(context, cell), 'ask', ['--ask-tool']);
  return ['--mcp-config', context.file(`ask-${cell}.json`, { mcpServers: { ask: server } })];
}

type Waiting = Paused & { status: string; pending: Array<{ id: string; kind: string; requestedSchema?: unknown }> };
const questionPending = (waiting: Waiting) =>
  expect(waiting.pending).toEqual([
    expect.objectContaining({
      id: 'call_1/elicitation-1',
      kind: 'elicitation',
      server: 'ask',
      message: 'Which number?',
    }),
  ]);

export function elicitationRows(expected: Outcome): Array<Row & { expected: Outcome }> {
  const argsOf = (context: RowContext, cell: string, extra: string[] = []) => [
    'run',
    '--json',
    ...modelFlags(context),
    ...askFlags(context, cell),
    ...extra,
    task,
  ];
  const row: Row & { expected: Outcome } = {
    name: 'MCP elicitation',
    flags: askFlags,
    // No approval flag: the question is the pause (a recorded run waits for a person, in any process).
    approvalFlags: [],
    task,
    answer,
    expected,
    // The answer reached the server once, as given (`sure` has no default: the form's default alone lacks it).
    answered(context, cell) {
      expect(answersOf(context, cell)).toEqual(['cancel', 'accept']);
      expect(elicited(context, cell).at(-1)?.content).toEqual(answer);
    },
    after: async (context, cell) => row.answered!(context, cell),
    // A worker has no person to ask, but a store: the run waits there (exit 4, the question pending) until someone
    // answers it from any process, here `approve --answer` on the worker's store.
    async submitted(context, run, store) {
      const waiting = parseJson<Outcome & { runId: string }>(run, 'submit');
      expect([run.code, waiting.status]).toEqual([4, 'interrupted']);
      const show = await context.cli(['show', waiting.runId, ...store]);
      expect(show.stdout).toMatch(/the MCP server "ask" asks/);
      const args = [
        'approve',
        waiting.runId,
        'call_1/elicitation-1',
        '--answer',
        JSON.stringify(answer),
        ...store,
        '--json',
      ];
      const answered = await context.cli(args);
      expect(outcomeOf(parseJson<Outcome>(answered, "approve on the worker's store"))).toEqual(expected);
      row.answered!(context, 'worker');
    },
    cells: {
      // One process: a person at the terminal says yes, which accepts the form's default (84); then `show` has it.
      async 'uninterrupted run, then show'(context) {
        const run = await underTerminal(argsOf(context, 'run', personAtTerminal), [[prompt, 'y']], context.env);
        const line = run.output.split(/\r?\n/).findLast((each) => each.startsWith('{"runId"'));
        const result = JSON.parse(line ?? 'null') as (Outcome & { runId: string }) | null;
        expect(result && outcomeOf(result), run.output).toEqual(expected);
        // The call ends while a person is asked (the server gets `cancel`) and runs again with the answer.
        expect(answersOf(context, 'run')).toEqual(['cancel', 'accept']);
        const show = await context.cli(['show', result!.runId]);
        expect(show.stdout).toMatch(/the MCP server "ask" asks/);
        expect(show.stdout).toMatch(/decision · approved call call_1\/elicitation-1/);
        expect(show.stdout).toMatch(/accept: the number is 84/);
      },
      // `reject --cancel` cancels the form (a plain reject declines it): the tool goes on with its default.
      async 'pause, reject in a new process'(context) {
        const paused = await pausedRun(row, context, 'reject');
        const rejected = await context.cli(['reject', paused.runId, paused.pending[0]!.id, '--cancel', '--json']);
        expect(outcomeOf(parseJson<Outcome>(rejected, 'reject --cancel'))).toEqual(expected);
        expect(answersOf(context, 'reject')).toEqual(['cancel', 'cancel']);
        const show = await context.cli(['show', paused.runId]);
        expect(show.stdout).toMatch(/decision · rejected call call_1\/elicitation-1/);
        expect(show.stdout).toMatch(/cancel: the number is 84/);
      },
      // Killed while the terminal's person is asked; resumed elsewhere it waits on the same question; the approve
      // that answers is killed after the server's answer (its model call held) and resumed: the server got it once.
      async 'kill -9 inside a write and after it, decide, resume, replay identical'() {
        // A model of its own: its gate holds calls, which would stall the row's other cells.
        const context = await rowContext({});
        try {
          const args = argsOf(context, 'kill', personAtTerminal).filter((arg) => arg !== '--json');
          const output = await killedAtPrompt(args, prompt, context.env);
          const runId = /run ([0-9a-f]{32})/.exec(output)![1]!;
          const resumed = await context.cli(['resume', runId, '--json']);
          const waiting = parseJson<Waiting>(resumed, 'resume');
          expect([resumed.code, waiting.status]).toEqual([4, 'interrupted']);
          questionPending(waiting);
          const { held } = context.model.closeGate();
          const answering = startCli(
            ['approve', runId, waiting.pending[0]!.id, '--answer', JSON.stringify(answer), '--json'],
            context.env,
          );
          await killedAt(answering, held, 'the answering approve');
          context.model.openGate();
          const last = await context.cli(['resume', runId, '--json']);
          expect(outcomeOf(parseJson<Outcome>(last, 'the last resume'))).toEqual(expected);
          // Cancelled where the run paused on the question, then accepted once (the last resume runs no call again).
          expect(answersOf(context, 'kill')).toEqual(['cancel', 'accept']);
          expect(elicited(context, 'kill').at(-1)?.content).toEqual(answer);
          const replay = await context.cli(['replay', runId]);
          expect(replay.stdout).toMatch(/^identical/);
        } finally {
          await context.model.close();
        }
      },
    },
  };
  return [row];
}
