// `stageloop agents` and `stageloop run --agent NAME` over the example team (a coordinator and two specialists),
// offline, recorded, then shown and replayed from the recording alone.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const config = fileURLToPath(new URL('../../examples/agents/stageloop.config.json', import.meta.url));

describe('agents in the CLI', () => {
  it('lists the configured agents with their tools', async () => {
    const listed = await runCli(['agents', '--mcp-config', config]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('coordinator  Splits a task into parts');
    expect(listed.stdout).toContain('tools: multiplier, subtractor');
    expect(listed.stdout).toMatch(
      /triage {7}Reads the request.*\n {13}tools: \(none\)\n {13}hands off to: multiplier, subtractor\n/,
    );
    const json = await runCli(['agents', '--json', '--mcp-config', config]);
    expect(JSON.parse(json.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'multiplier',
          tools: ['calculator'],
          pipeline: 'react',
          model: null,
          handoffs: [],
        }),
        expect.objectContaining({ name: 'triage', tools: [], handoffs: ['multiplier', 'subtractor'] }),
      ]),
    );
  });

  it('runs the coordinator offline: both specialists answer, usage sums the three runs, replay is identical', async () => {
    const run = await runCli([
      'run',
      '--agent',
      'coordinator',
      '--offline',
      '--json',
      '--mcp-config',
      config,
      'Compute 12 * 7; compute 100 - 58',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      runId: string;
      status: string;
      answer: string;
      usage: { inputTokens: number };
    };
    expect(result).toMatchObject({ status: 'completed', answer: '12 * 7 = 84; 100 - 58 = 42' });
    const runs = JSON.parse((await runCli(['runs', '--json'])).stdout) as Array<{
      runId: string;
      tokens: number;
      status: string;
    }>;
    const children = runs.filter((entry) => entry.runId.startsWith(`${result.runId}.`));
    expect(children.map((child) => child.status)).toEqual(['completed', 'completed']);
    const parent = runs.find((entry) => entry.runId === result.runId)!;
    // The coordinator's tokens include its children's, which are recorded as runs of their own.
    expect(parent.tokens).toBeGreaterThan(children.reduce((sum, child) => sum + child.tokens, 0));
    const replay = await runCli(['replay', result.runId]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('identical');
  });

  it('runs the triage agent offline: it hands off, the specialist answers and is named, replay is identical', async () => {
    const run = await runCli([
      'run',
      '--agent',
      'triage',
      '--offline',
      '--json',
      '--mcp-config',
      config,
      'What is 100 - 58? Ask the subtractor.',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      runId: string;
      answer: string;
      answeredBy: string;
      stopReason: { kind: string };
      usage: { inputTokens: number };
    };
    expect(result).toMatchObject({
      answer: '100 - 58 = 42',
      answeredBy: 'subtractor',
      stopReason: { kind: 'handoff' },
    });
    const runs = JSON.parse((await runCli(['runs', '--json'])).stdout) as Array<{
      runId: string;
      tokens: number;
      status: string;
    }>;
    const [target] = runs.filter((entry) => entry.runId.startsWith(`${result.runId}.`));
    expect(target?.status).toBe('completed');
    expect(runs.find((entry) => entry.runId === result.runId)!.tokens).toBeGreaterThan(target!.tokens);
    const replay = await runCli(['replay', result.runId]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('identical');
    // show prints the target's own timeline under the handoff call that started it, indented, with its answer.
    const shown = await runCli(['show', result.runId]);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.split('\n');
    const call = lines.findIndex((line) => line.startsWith('    tools · transfer_to_subtractor {} → 100 - 58 = 42'));
    expect(call).toBeGreaterThan(0);
    expect(lines[call + 1]).toBe(`    ↳ agent triage/subtractor · run ${target!.runId} · completed`);
    const child = lines.slice(call + 2, lines.indexOf('      answer: 100 - 58 = 42', call));
    expect(child.length).toBeGreaterThan(10);
    expect(child.every((line) => line.startsWith('      '))).toBe(true);
    expect(child).toContain('          tools · calculator {"expression":"100 - 58"} → Expression: 100 - 58 Result: 42');
    expect(lines.slice(call).find((line) => line.startsWith('[1] handoff'))).toMatch(
      /ends the loop \(handoff\): handed off to subtractor/,
    );
    const json = JSON.parse((await runCli(['show', result.runId, '--json'])).stdout) as {
      children: Array<{ callId: string; runId: string; status: string; timeline: unknown[]; children: unknown[] }>;
    };
    expect(json.children).toEqual([
      expect.objectContaining({ runId: target!.runId, status: 'completed', children: [] }),
    ]);
    expect(`${result.runId}.${json.children[0]!.callId}`).toBe(target!.runId);
    expect(json.children[0]!.timeline.length).toBeGreaterThan(10);
  });

  it('a handoff chain (reception to triage to the subtractor): the subtractor is named, with the chain and its runs', async () => {
    const run = await runCli([
      'run',
      '--agent',
      'reception',
      '--offline',
      '--json',
      '--mcp-config',
      config,
      'What is 100 - 58? Ask the subtractor.',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      runId: string;
      answer: string;
      answeredBy: string;
      handoffs: Array<{ agent: string; runId: string }>;
      stopReason: { message: string };
    };
    expect(result).toMatchObject({
      answer: '100 - 58 = 42',
      answeredBy: 'subtractor',
      stopReason: { message: 'handed off to triage, then subtractor, which answered' },
    });
    expect(result.handoffs.map((link) => link.agent)).toEqual(['triage', 'subtractor']);
    const [triage, subtractor] = result.handoffs;
    expect(triage!.runId.startsWith(`${result.runId}.`)).toBe(true);
    expect(subtractor!.runId.startsWith(`${triage!.runId}.`)).toBe(true);
    const replay = await runCli(['replay', result.runId]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/^identical/);
  });

  it('a handoff to an agent the file does not define is a config error naming it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'stageloop-handoff-config-')), 'stageloop.config.json');
    writeFileSync(
      file,
      JSON.stringify({
        agents: { triage: { description: 'Triage.', instructions: 'Hand off.', handoffs: ['refunds'] } },
      }),
    );
    const listed = await runCli(['agents', '--mcp-config', file]);
    expect(listed.code).toBe(2);
    expect(listed.stderr.trim()).toBe(
      `stageloop: ${file}: agents.triage.handoffs names "refunds", which is not an agent in this file: the agents are triage`,
    );
  });

  it("a specialist's approval pause pauses the coordinator (exit 4); approve in a new process finishes it with the same usage; replay identical", async () => {
    const task = 'Compute 12 * 7; compute 100 - 58';
    const plain = JSON.parse(
      (await runCli(['run', '--agent', 'coordinator', '--offline', '--json', '--mcp-config', config, task])).stdout,
    ) as { usage: object };
    const paused = await runCli([
      'run',
      '--agent',
      'coordinator',
      '--offline',
      '--approve-tools',
      'calculator',
      '--json',
      '--mcp-config',
      config,
      task,
    ]);
    expect(paused.code, paused.stderr).toBe(4);
    const result = JSON.parse(paused.stdout) as {
      runId: string;
      status: string;
      pending: Array<{ id: string; agent: string }>;
    };
    expect(result.status).toBe('interrupted');
    // Each specialist's calculator call, under the coordinator's call that started it.
    expect(result.pending.map((item) => [item.id.split('/').length, item.agent])).toEqual([
      [2, 'coordinator/multiplier'],
      [2, 'coordinator/subtractor'],
    ]);
    expect(paused.stderr).toContain(
      `${result.pending[0]!.id}  calculator(expression: "12 * 7")  (agent coordinator/multiplier)`,
    );
    // Shown as it runs, the coordinator asks for it as for any call of its own, under the id to decide it by.
    const watched = await runCli([
      'run',
      '--agent',
      'coordinator',
      '--offline',
      '--approve-tools',
      'calculator',
      '--mcp-config',
      config,
      task,
    ]);
    expect(watched.code).toBe(4);
    expect(watched.stderr).toContain(
      `  approval needed: calculator(expression: "12 * 7") (call ${result.pending[0]!.id}, agent coordinator/multiplier): the pipeline asks`,
    );
    const approved = await runCli(['approve', result.runId, '--json']);
    expect(approved.code, approved.stderr).toBe(0);
    const finished = JSON.parse(approved.stdout) as { status: string; answer: string; usage: object };
    expect(finished).toMatchObject({ status: 'completed', answer: '12 * 7 = 84; 100 - 58 = 42' });
    expect(finished.usage).toEqual(plain.usage);
    const replay = await runCli(['replay', result.runId]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/^identical/);
  });

  it('an unknown agent is one line and exit 2', async () => {
    const run = await runCli(['run', '--agent', 'nobody', '--offline', '--mcp-config', config, '2 + 2']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `stageloop: --agent nobody: no such agent in ${config}: the agents are coordinator, triage, reception, multiplier, subtractor`,
    );
  });
});
