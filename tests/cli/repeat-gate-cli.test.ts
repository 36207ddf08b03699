// `--on-repeat ask` through the tool gate, in every pipeline a user meets: ReAct, plan steps side by side, a child
// agent, a handoff target. With --loop-limit 2, the 2nd identical failing call waits for a person as a gate decision (status
// `interrupted`, exit 4, a pending `tool_approval` naming the repeat); `stageloop approve` runs that call once more,
// `stageloop reject --message` gives the model the message instead of running it. A real model server on loopback,
// real processes, SQLite; replay of the approved run is identical.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatRequestBody } from '../support/chat-server.js';
import { scriptedCliSuite } from '../support/scripted-cli-suite.js';
import type { ReplyOptions } from '../support/chat-bodies.js';
import { runCli, type CliRun } from '../support/run-cli.js';

/** The repeated-call limit: the 2nd identical failing call is asked about (a plan step gives up after its 3rd failure). */
const limit = 2;
const failing = (made: number) => ({
  id: `calc-${made + 1}`,
  name: 'calculator',
  arguments: '{"expression":"17 / / 23"}',
});
type Message = ChatRequestBody['messages'][number];

/** Failing calculator calls made so far in this conversation (results count; a rejection's refusal too). */
const calculatorCalls = (messages: readonly Message[]) =>
  messages.flatMap((message) => message.tool_calls ?? []).filter((call) => call.function.name === 'calculator').length;

/** A model that answers from the request alone (steps side by side and agents ask in any order). */
function reply(body: ChatRequestBody): ReplyOptions {
  const messages = body.messages;
  const text = messages.map((message) => String(message.content ?? '')).join('\n');
  const offered = new Set((body.tools ?? []).map((tool) => tool.function.name));
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const results = messages.slice(lastUser + 1).filter((message) => message.role === 'tool');
  if (text.startsWith('You are the planner')) {
    const steps = [
      { id: 'a', description: 'Compute 17 / 23', dependsOn: [] },
      { id: 'b', description: 'Say hello', dependsOn: [] },
    ];
    return { content: JSON.stringify({ goal: 'two things', steps }) };
  }
  if (text.startsWith('You are the replanner'))
    return { content: JSON.stringify({ need_replan: false, reason: 'on track', new_steps: [] }) };
  if (text.startsWith('You write the final answer')) return { content: 'Done.' };
  if (/Current step \(\d of 2\): Say hello/.test(text)) return { content: 'Hello.' };
  if (offered.has('transfer_to_solver')) return { toolCalls: [{ name: 'transfer_to_solver', arguments: '{}' }] };
  if (offered.has('solver'))
    return results.length === 0
      ? { toolCalls: [{ name: 'solver', arguments: '{"task":"Compute 17 / 23"}' }] }
      : { content: 'Done.' };
  // Whoever computes: the same failing call until it has been made three times, then an answer.
  const scope = /Current step/.test(text) ? messages.slice(lastUser + 1) : messages;
  const made = calculatorCalls(scope);
  return made < limit ? { toolCalls: [failing(made)] } : { content: 'About 0.739.' };
}

const suite = scriptedCliSuite(reply, 'repeat-gate');

const team = {
  agents: {
    lead: { description: 'Delegates.', instructions: 'Ask the solver.', tools: [], agents: ['solver'] },
    triage: { description: 'Routes.', instructions: 'Hand on.', tools: [], handoffs: ['solver'] },
    solver: { description: 'Computes.', instructions: 'Use the calculator.', tools: ['calculator'] },
  },
};

function configFile(): string {
  const file = join(suite.folder, 'stageloop.config.json');
  writeFileSync(file, JSON.stringify(team));
  return file;
}

const env = () => ({ OPENAI_API_KEY: 'sk-test', STAGELOOP_HOME: suite.folder });
const store = () => ['--store', join(suite.folder, 'runs.db')];
const cli = (args: string[]) => runCli([...args, ...store(), '--json'], env());

interface Result {
  runId: string;
  status: string;
  answer: string | null;
  stopReason: { kind: string; stage?: string };
  pending?: Array<{ id: string; kind: string; tool: string; reason: string; agent?: string }>;
}
function resultOf(run: CliRun): Result {
  try {
    return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Result;
  } catch {
    throw new Error(`exit ${run.code}: ${run.stdout}${run.stderr}`);
  }
}

const contexts: Array<{ name: string; flags: () => string[] }> = [
  { name: 'ReAct', flags: () => [] },
  { name: 'plan steps side by side', flags: () => ['-p', 'plan-execute-replan', '--max-parallel-steps', '2'] },
  { name: 'a child agent', flags: () => ['--mcp-config', configFile(), '--agent', 'lead'] },
  { name: 'a handoff target', flags: () => ['--mcp-config', configFile(), '--agent', 'triage'] },
];

/** What the model was told about the held call (the last, calc-2), in the first request made after it was decided. */
function toolMessageAfter(callCount: number, id = `calc-${limit}`): string | undefined {
  const later = suite.model.requests
    .slice(callCount)
    .find((request) => request.body.messages.some((m) => m.tool_call_id === id));
  return later?.body.messages.find((message) => message.tool_call_id === id)?.content ?? undefined;
}

async function pausedRun(flags: string[]): Promise<{ result: Result; id: string }> {
  const model_ = ['--base-url', suite.model.url, '--model', 'test-model'];
  const paused = await cli([
    'run',
    ...model_,
    '--on-repeat',
    'ask',
    '--loop-limit',
    String(limit),
    ...flags,
    'Compute 17 / 23',
  ]);
  expect(paused.code, paused.stderr).toBe(4);
  const result = resultOf(paused);
  expect(result.status).toBe('interrupted');
  // The gate held it (act pauses on the held call), not a stage of the pipeline.
  expect(result.stopReason).toMatchObject({ kind: 'awaiting_approval', stage: 'act' });
  expect(result.pending).toEqual([
    expect.objectContaining({
      kind: 'tool_approval',
      tool: 'calculator',
      reason: expect.stringMatching(/^a repeated, identical call to calculator that already failed 1 times in a row/),
    }),
  ]);
  return { result, id: result.pending![0]!.id };
}

describe('--on-repeat ask through the gate', () => {
  for (const context of contexts) {
    it(`${context.name}: the 2nd identical failing call pauses as a gate decision; approve runs it once more; replay identical`, async () => {
      const { result } = await pausedRun(context.flags());
      const before = suite.model.requests.length;
      const approved = await cli(['approve', result.runId]);
      // Done, or (a plan step) abandoned after that last failure: no longer waiting.
      expect(['completed', 'stopped']).toContain(resultOf(approved).status);
      // The approved call ran: the model reads the calculator's own error, not a refusal.
      expect(toolMessageAfter(before)).toMatch(/./);
      expect(toolMessageAfter(before)).not.toMatch(/Not run|Waiting for a person/);
      const replay = await runCli(['replay', result.runId, ...store()], env());
      expect(replay.stdout, replay.stderr).toMatch(/^identical/);
    }, 180_000);

    it(`${context.name}: reject sends the person's message to the model instead of running the call`, async () => {
      const { result, id } = await pausedRun(context.flags());
      const before = suite.model.requests.length;
      const rejected = await cli(['reject', result.runId, id, '--message', 'write it as 17 / 23']);
      expect(rejected.code, rejected.stderr).not.toBe(4);
      expect(toolMessageAfter(before)).toMatch(/rejected this call: write it as 17 \/ 23/);
    }, 180_000);
  }
});
