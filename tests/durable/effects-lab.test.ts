// The crash lab for effects: a run whose write tool appends a line to a file (a local tool, or its MCP twin in a
// server child process) is killed with kill -9 at every aimed point of a write call (before its intent, after it,
// inside the tool, after the tool before its result is written, after the result), in ReAct, plan steps side by
// side, a child agent and a handoff. Each kill is timed by the child's own line: it stops dead at the point and says
// so. After resume and every decision (a person who looks at the file: approves a line that is not there, rejects
// with "it did run" one that is; or one who approves every time), the file has each line once, or twice only where
// a person approved a re-run of a line already there, and every attempt of a line carried one idempotency key.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/engine/decision-types.js';
import type { RunResult } from '../../src/engine/runner.js';
import type { ChildConfig } from './crash-child.js';
import { spawnChild } from './crash-harness.js';
import type { EffectsConfig, Point, Scenario } from './effects-child.js';
import { startEffectsModel } from './effects-model.js';

const repository = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const points: Point[] = ['before-intent', 'after-intent', 'inside', 'after-tool', 'after-result'];
const texts: Record<Scenario, string[]> = {
  react: ['line-1', 'line-2', 'line-3'],
  plan: ['part-1', 'part-2', 'part-3'],
  agent: ['line-1', 'line-2'],
  handoff: ['line-1', 'line-2'],
};

let folder: string;
let scripts: { child: string; mcpServer: string };
let kills = 0;
let finished = 0;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'stageloop-effects-'));
  const outdir = join(repository, 'node_modules', '.cache', `stageloop-effects-${process.pid}`);
  // Bundled once (as crash-harness.ts does): a child starts in a fraction of the time tsx takes.
  await build({
    entryPoints: [
      join(repository, 'tests/durable/effects-child.ts'),
      join(repository, 'tests/durable/effects-mcp-server.ts'),
    ],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outdir,
    logLevel: 'warning',
  });
  scripts = { child: join(outdir, 'effects-child.js'), mcpServer: join(outdir, 'effects-mcp-server.js') };
}, 120_000);

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(dirname(scripts.child), { recursive: true, force: true });
  // The suite's promise: at least 60 aimed kills a run (when every scenario ran: not under a name filter).
  if (finished === scenarioCount) expect(kills).toBeGreaterThanOrEqual(60);
});

type Approver = 'careful' | 'blind';

/** Runs one scenario to its end: a kill at `point` for each line in turn, resumes, and a person's decisions. */
async function crashThrough(scenario: Scenario, tool: EffectsConfig['tool'], point: Point, approver: Approver) {
  const name = `${scenario}-${tool}-${point}`;
  const model = await startEffectsModel(texts[scenario].length);
  const file = join(folder, `${name}.txt`);
  const base = { db: join(folder, `${name}.db`), runId: `run-${name}`, serverUrl: model.url, file, scenario, tool };
  const lines = () =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((line) => line.split('\t'))
      : [];
  const approvedTwice = new Map<string, number>();
  let aims = [...texts[scenario]];
  let action: EffectsConfig['action'] = 'start';
  let decisions: Record<string, Decision> | undefined;
  try {
    for (let attempt = 1; attempt <= 24; attempt++) {
      const aim = aims[0];
      const config: EffectsConfig = {
        ...base,
        action,
        mcpServer: scripts.mcpServer,
        ...(decisions !== undefined && { decisions }),
        ...(aim !== undefined && { aim: { point, text: aim } }),
      };
      const child = spawnChild(scripts.child, config as unknown as ChildConfig);
      const hit = child.waitForLine((line) => line === `at ${point} ${aim}`);
      hit.catch(() => undefined);
      const first = await Promise.race([hit.then(() => 'hit' as const), child.exited.then(() => 'exited' as const)]);
      if (first === 'hit') {
        child.kill('SIGKILL');
        await child.exited;
        kills += 1;
        aims = aims.slice(1);
        [action, decisions] = ['resume', undefined];
        continue;
      }
      const line = child.lines.find((each) => each.startsWith('result '));
      if (line === undefined) throw new Error(`attempt ${attempt} printed no result: ${child.stderr}`);
      const result = JSON.parse(line.slice('result '.length)) as RunResult;
      // A line whose aimed point never comes (a call a person decided not to run again) is aimed at no more.
      aims = aims.filter((text) => !lines().some(([, written]) => written === text));
      if (result.status === 'completed') break;
      expect(result.status, child.stderr).toBe('interrupted');
      decisions = {};
      for (const pending of result.pending ?? []) {
        expect(pending.kind).toBe('in_doubt');
        const text = (JSON.parse(String(pending.arguments)) as { text: string }).text;
        const there = lines().some(([, written]) => written === text);
        if (approver === 'blind' && there) approvedTwice.set(text, (approvedTwice.get(text) ?? 0) + 1);
        decisions[pending.id] =
          approver === 'blind' || !there
            ? { approve: true }
            : { approve: false, message: `it did run; the result was appended ${text}` };
      }
      action = 'resume';
    }
    const written = lines();
    for (const text of texts[scenario]) {
      const attempts = written.filter(([, each]) => each === text);
      expect(attempts.length, `${name}: ${text} in ${JSON.stringify(written)}`).toBe(
        1 + (approvedTwice.get(text) ?? 0),
      );
      expect(new Set(attempts.map(([key]) => key)).size, `${name}: one key for ${text}`).toBe(1);
    }
    finished += 1;
  } finally {
    await model.close();
  }
}

/** The local tool in every pipeline; its MCP twin in ReAct and plan steps (an agent's and a handoff's tools are the
 * same registry either way). */
const cases = (Object.keys(texts) as Scenario[]).flatMap((scenario) =>
  (scenario === 'react' || scenario === 'plan' ? (['local', 'mcp'] as const) : (['local'] as const)).map(
    (tool) => [scenario, tool] as const,
  ),
);
const scenarioCount = cases.length * points.length;

describe.concurrent('the effects crash lab: kill -9 at every aimed point, then resume and decide', () => {
  for (const [scenario, tool] of cases)
    points.forEach((point, index) =>
      // Generous: each scenario is a few processes in turn, on a machine that may be shared.
      it(
        `${scenario}, ${tool} write tool, killed ${point}`,
        () => crashThrough(scenario, tool, point, index % 2 === 0 ? 'careful' : 'blind'),
        600_000,
      ),
    );
});
