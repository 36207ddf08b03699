// The crash test of durable runs: real child processes running a recorded ReAct run against a loopback model are
// SIGKILLed at random points and resumed until done; the recovered run must equal an uninterrupted one. Reproduce a
// failure with the CRASH_SEED the failing test prints.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { RunResult } from '../../src/engine/runner.js';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import type { RunStore } from '../../src/store/types.js';
import type { ChildConfig } from './crash-child.js';
import { buildChild, delay, seededRandom, spawnChild, startScriptedModel, type Child, type ScriptedModel } from './crash-harness.js';
import { expectRecovered, lastAcknowledged, type Interruption, type Reference } from './crash-recovery.js';

const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const modelDelayMs = 40;
const toolDelayMs = 30;

interface Mode {
  toolTurns: number;
  maxIterations: number;
  /** Bytes added to the state so that each checkpoint write takes a few ms (a bigger window to kill inside). */
  paddingBytes: number;
}
const modes = {
  // Five tool turns, then a final answer: completed; summarize keeps the answer without a model call.
  answer: { toolTurns: 5, maxIterations: 10, paddingBytes: 0 },
  // Never answers: stopped at the cap, and summarize asks the model for a summary (a model call in finalize).
  cap: { toolTurns: 1_000, maxIterations: 5, paddingBytes: 0 },
  // A 300 KB state: checkpoints only after setup, on entering finalize and at the end, each a long write.
  padded: { toolTurns: 4, maxIterations: 10, paddingBytes: 300_000 },
} satisfies Record<string, Mode>;
type ModeName = keyof typeof modes;

type Aim = 'model' | 'tool' | 'stage' | 'checkpoint' | 'finalize';
interface KillPlan {
  aim: Aim;
  /** Kill at the nth such point of the attempt. */
  nth: number;
}
interface Kill extends KillPlan {
  attempt: number;
  resumed: boolean;
  /** For checkpoint aims: whether the checkpoint aimed at was in the store after the kill. */
  checkpointCommitted?: boolean;
}

let folder: string;
let script: string;
const references = new Map<ModeName, Reference>();
const live = new Set<Child>();
const kills: Kill[] = [];

interface Setup {
  model: ScriptedModel;
  store: RunStore;
  config: Omit<ChildConfig, 'action' | 'attempt'>;
}

async function setUp(name: string, modeName: ModeName, extra: Partial<ChildConfig> = {}): Promise<Setup> {
  const mode: Mode = modes[modeName];
  const model = await startScriptedModel(mode.toolTurns, modelDelayMs);
  const db = join(folder, `${name}.db`);
  const config = { db, runId: `run-${modeName}`, serverUrl: model.server.url, sideLog: join(folder, `${name}.log`), maxIterations: mode.maxIterations, toolDelayMs, paddingBytes: mode.paddingBytes, ...extra };
  // The parent reads the same file the children write (WAL: readers never block the writer).
  return { model, store: sqliteStore(db), config };
}

async function tearDown(setup: Setup): Promise<void> {
  await setup.store.close();
  await setup.model.close();
}

function launch(setup: Setup, action: ChildConfig['action'], attempt: number, extra: Partial<ChildConfig> = {}): Child {
  const child = spawnChild(script, { ...setup.config, action, attempt, ...extra });
  live.add(child);
  void child.exited.then(() => live.delete(child));
  return child;
}

function resultOf(child: Child): RunResult {
  const line = child.lines.find((candidate) => candidate.startsWith('result '));
  if (line === undefined) throw new Error(`the child printed no result; stderr: ${child.stderr}`);
  return JSON.parse(line.slice('result '.length)) as RunResult;
}

/** Arms one kill: at the nth point of this kind, after a random wait that keeps it inside that point. */
function arm(child: Child, setup: Setup, plan: KillPlan, random: ReturnType<typeof seededRandom>): { checkpointSeq?: number } {
  const aimed: { checkpointSeq?: number } = {};
  let seen = 0;
  const at = (waitMs: number): void => {
    seen += 1;
    if (seen !== plan.nth) return;
    if (waitMs === 0) child.kill('SIGKILL');
    else setTimeout(() => child.kill('SIGKILL'), waitMs);
  };
  // During a model call: the request has arrived and its reply waits modelDelayMs.
  if (plan.aim === 'model') setup.model.onRequest = () => at(random.between(1, modelDelayMs - 10));
  child.onLine((line) => {
    // During a tool call: its side effect is done, its result not yet recorded.
    if (plan.aim === 'tool' && line.startsWith('tool ')) at(random.between(1, toolDelayMs - 10));
    // Between stages: at the start of a stage that does no I/O, so the kill lands in it or at the boundary after it.
    if (plan.aim === 'stage' && /^stage iteration \d+ (observe|evaluate)$/.test(line)) at(random.between(0, 1));
    // Inside a checkpoint write: the line is printed just before the store call that writes it.
    if (plan.aim === 'checkpoint' && line.startsWith('checkpoint ')) {
      if (seen + 1 === plan.nth) aimed.checkpointSeq = Number(line.slice('checkpoint '.length));
      at(0);
    }
    if (plan.aim === 'finalize' && line.startsWith('stage finalize')) at(random.between(0, modelDelayMs));
  });
  return aimed;
}

/** Runs the scenario's run, killing it once per plan (resumes included), then resumes it until it is done. */
async function crashUntilDone(setup: Setup, plans: readonly KillPlan[], random: ReturnType<typeof seededRandom>): Promise<{ interruptions: Interruption[]; finalResult: RunResult | undefined }> {
  const interruptions: Interruption[] = [];
  let action: ChildConfig['action'] = 'start';
  for (let attempt = 1; attempt <= plans.length + 1; attempt++) {
    const child = launch(setup, action, attempt);
    const plan = plans[attempt - 1];
    const aimed = plan === undefined ? {} : arm(child, setup, plan, random);
    const exit = await child.exited;
    setup.model.onRequest = undefined;
    if (exit.signal === 'SIGKILL') {
      const exists = (await setup.store.get(setup.config.runId)) !== undefined;
      const journalAfter = exists ? await setup.store.journal(setup.config.runId) : [];
      interruptions.push({ attempt, journalAfter, acknowledged: lastAcknowledged(child.lines) });
      const kill: Kill = { ...plan!, attempt, resumed: action === 'resume' };
      if (aimed.checkpointSeq !== undefined) kill.checkpointCommitted = (await setup.store.checkpoints(setup.config.runId)).some((checkpoint) => checkpoint.seq === aimed.checkpointSeq);
      kills.push(kill);
      action = exists ? 'resume' : 'start';
      continue;
    }
    if (exit.code === 0) return { interruptions, finalResult: resultOf(child) };
    // Killed after the run's end was written: resuming it says so.
    if (exit.code === 3 && child.stderr.includes('RunFinishedError')) return { interruptions, finalResult: undefined };
    throw new Error(`attempt ${attempt} exited with ${exit.code}: ${child.stderr}`);
  }
  throw new Error('the run was still not done after its last planned kill');
}

/** Each aim appears in turn, with a random nth; finalize comes last (nothing else is left to aim at after it). */
function killPlans(random: ReturnType<typeof seededRandom>, count: number, aims: readonly Aim[]): KillPlan[] {
  const plans = Array.from({ length: count }, (_unused, index) => ({ aim: aims[(random.between(0, aims.length - 1) + index) % aims.length]!, nth: random.between(1, 2) }));
  return plans.sort((left, right) => Number(left.aim === 'finalize') - Number(right.aim === 'finalize'));
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'stageloop-crash-'));
  script = await buildChild();
  // The uninterrupted runs every recovered run is compared with: same child, same model, no kills.
  await Promise.all(
    (Object.keys(modes) as ModeName[]).map(async (modeName) => {
      const setup = await setUp(`reference-${modeName}`, modeName);
      const child = launch(setup, 'start', 1);
      const exit = await child.exited;
      if (exit.code !== 0) throw new Error(`the reference run exited with ${exit.code}: ${child.stderr}`);
      const checkpoint = await setup.store.latestCheckpoint(setup.config.runId);
      references.set(modeName, { result: resultOf(child), checkpointState: checkpoint?.state });
      await tearDown(setup);
    }),
  );
}, 60_000);

afterAll(() => {
  for (const child of live) child.kill('SIGKILL');
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  if (script !== undefined) rmSync(dirname(script), { recursive: true, force: true });
});

const scenarios: Array<{ name: string; mode: ModeName; kills: number; aims: Aim[] }> = [
  ...[1, 2, 3, 4].map((index) => ({ name: `answer-${index}`, mode: 'answer' as const, kills: 4, aims: ['model', 'tool', 'stage', 'checkpoint', 'finalize'] as Aim[] })),
  ...[1, 2, 3].map((index) => ({ name: `cap-${index}`, mode: 'cap' as const, kills: 4, aims: ['model', 'tool', 'stage', 'checkpoint', 'finalize'] as Aim[] })),
  ...[1, 2].map((index) => ({ name: `padded-${index}`, mode: 'padded' as const, kills: 3, aims: ['checkpoint', 'checkpoint', 'tool', 'finalize'] as Aim[] })),
];

describe.concurrent(`a run SIGKILLed at random points (CRASH_SEED=${seed})`, () => {
  scenarios.forEach((scenario, index) => {
    it(`${scenario.name}: ${scenario.kills} kills, then resumed until done, equals the uninterrupted run`, async () => {
      onTestFailed(() => console.error(`crash test failed: reproduce with CRASH_SEED=${seed}`));
      const random = seededRandom(seed + index);
      const setup = await setUp(scenario.name, scenario.mode);
      try {
        const plans = killPlans(random, scenario.kills, scenario.aims);
        const { interruptions, finalResult } = await crashUntilDone(setup, plans, random);
        await expectRecovered(setup.store, setup.config.runId, setup.config.maxIterations, setup.config.sideLog, references.get(scenario.mode)!, interruptions, finalResult);
      } finally {
        await tearDown(setup);
      }
    }, 90_000);
  });
});

describe('a run killed in finalize', () => {
  it('resumes from the finalize checkpoint and records the summary call at the run\'s last iteration, as a run never killed does', async () => {
    onTestFailed(() => console.error(`crash test failed: reproduce with CRASH_SEED=${seed}`));
    const setup = await setUp('finalize-call', 'cap');
    try {
      const child = launch(setup, 'start', 1);
      setup.model.onRequest = (request) => request.summary && setTimeout(() => child.kill('SIGKILL'), 5);
      expect((await child.exited).signal).toBe('SIGKILL');
      setup.model.onRequest = undefined;
      const interruptions = [{ attempt: 1, journalAfter: await setup.store.journal(setup.config.runId), acknowledged: lastAcknowledged(child.lines) }];
      expect((await setup.store.latestCheckpoint(setup.config.runId))?.position.zone).toBe('finalize');
      const resumed = launch(setup, 'resume', 2);
      expect((await resumed.exited).code).toBe(0);
      const summaryCall = (await setup.store.journal(setup.config.runId)).filter((entry) => entry.kind === 'model' && entry.zone === 'finalize');
      expect(summaryCall.map((entry) => entry.iteration)).toEqual([modes.cap.maxIterations]);
      await expectRecovered(setup.store, setup.config.runId, setup.config.maxIterations, setup.config.sideLog, references.get('cap')!, interruptions, resultOf(resumed));
    } finally {
      await tearDown(setup);
    }
  }, 30_000);
});
