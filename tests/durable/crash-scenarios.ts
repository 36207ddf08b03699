// The crash test of durable runs, written once for every store: real child processes running a recorded run against
// a loopback model are SIGKILLed at random points and resumed until done; the recovered run must equal an
// uninterrupted one. Reproduce a failure with the CRASH_SEED the failing test prints.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { RunResult } from '../../src/engine/runner.js';
import type { ChildConfig } from './crash-child.js';
import { seededRandom, type Child } from './crash-harness.js';
import {
  modelDelayMs,
  modes,
  openLab,
  resultOf,
  toolDelayMs,
  type Lab,
  type LabStore,
  type ModeName,
  type Setup,
} from './crash-lab.js';
import { expectRecovered, lastAcknowledged, type Interruption } from './crash-recovery.js';

const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));

type Aim = 'model' | 'tool' | 'stage' | 'checkpoint' | 'finalize' | 'anywhere';
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

let lab: Lab;
const kills: Kill[] = [];
let planned = 0;
/** Planned kills whose point never came: the run ended first (the plans after one are dropped with it). */
const missed: Aim[] = [];

/** Arms one kill: at the nth point of this kind, after a random wait that keeps it inside that point. */
function arm(
  child: Child,
  setup: Setup,
  plan: KillPlan,
  random: ReturnType<typeof seededRandom>,
): { checkpointSeq?: number } {
  const aimed: { checkpointSeq?: number } = {};
  let seen = 0;
  const at = (waitMs: number): void => {
    seen += 1;
    if (seen !== plan.nth) return;
    if (waitMs === 0) child.kill('SIGKILL');
    else setTimeout(() => child.kill('SIGKILL'), waitMs);
  };
  // Anywhere: at a random one of the first lines the child prints (any stage, checkpoint or call), on the event itself.
  const anywhereLine = plan.aim === 'anywhere' ? random.between(1, 8) : 0;
  let lines = 0;
  // During a model call: the request has arrived and its reply waits modelDelayMs.
  if (plan.aim === 'model') setup.model.onRequest = () => at(random.between(1, modelDelayMs - 10));
  child.onLine((line) => {
    if (plan.aim === 'anywhere' && ++lines === anywhereLine) child.kill('SIGKILL');
    // During a tool call: its side effect is done, its result not yet recorded.
    if (plan.aim === 'tool' && line.startsWith('tool ')) at(random.between(1, toolDelayMs - 10));
    // Between stages: at the start of a stage that does no I/O, so the kill lands in it or at the boundary after it.
    if (plan.aim === 'stage' && /^stage iteration \d+ (observe|evaluate)$/.test(line)) at(random.between(0, 1));
    // Inside a checkpoint write: the line is printed just before the store call that writes it.
    if (plan.aim === 'checkpoint' && line.startsWith('checkpoint ')) {
      if (seen + 1 === plan.nth) aimed.checkpointSeq = Number(line.slice('checkpoint '.length));
      at(0);
    }
    // In finalize: during the summary's model call (a capped ReAct run, a plan's composed answer), else in its quick pass.
    if (plan.aim === 'finalize' && line.startsWith('stage finalize'))
      at(
        setup.mode === 'cap' || setup.mode === 'planned' || setup.mode === 'graph'
          ? random.between(0, modelDelayMs)
          : 0,
      );
  });
  return aimed;
}

/** Runs the scenario's run, killing it once per plan (resumes included), then resumes it until it is done. */
async function crashUntilDone(
  setup: Setup,
  plans: readonly KillPlan[],
  random: ReturnType<typeof seededRandom>,
): Promise<{ interruptions: Interruption[]; finalResult: RunResult | undefined }> {
  const interruptions: Interruption[] = [];
  let action: ChildConfig['action'] = 'start';
  for (let attempt = 1; attempt <= plans.length + 1; attempt++) {
    const child = lab.launch(setup, action, attempt);
    const plan = plans[attempt - 1];
    const aimed = plan === undefined ? {} : arm(child, setup, plan, random);
    const exit = await child.exited;
    setup.model.onRequest = undefined;
    if (exit.signal === 'SIGKILL') {
      const exists = (await setup.store.get(setup.config.runId)) !== undefined;
      const journalAfter = exists ? await setup.store.journal(setup.config.runId) : [];
      interruptions.push({ attempt, journalAfter, acknowledged: lastAcknowledged(child.lines) });
      const kill: Kill = { ...plan!, attempt, resumed: action === 'resume' };
      if (aimed.checkpointSeq !== undefined)
        kill.checkpointCommitted = (await setup.store.checkpoints(setup.config.runId)).some(
          (checkpoint) => checkpoint.seq === aimed.checkpointSeq,
        );
      kills.push(kill);
      action = exists ? 'resume' : 'start';
      continue;
    }
    if (plan !== undefined) missed.push(plan.aim);
    if (exit.code === 0) return { interruptions, finalResult: resultOf(child) };
    // Killed after the run's end was written: resuming it says so.
    if (exit.code === 3 && child.stderr.includes('RunFinishedError')) return { interruptions, finalResult: undefined };
    throw new Error(`attempt ${attempt} exited with ${exit.code}: ${child.stderr}`);
  }
  throw new Error('the run was still not done after its last planned kill');
}

/** The aims in turn from a random one, each with a random nth, and last a kill in finalize (nothing is left after it). */
function killPlans(random: ReturnType<typeof seededRandom>, count: number, aims: readonly Aim[]): KillPlan[] {
  const first = random.between(0, aims.length - 1);
  const plans = Array.from({ length: count - 1 }, (_unused, index) => aims[(first + index) % aims.length]!).map(
    (aim) => ({
      aim,
      // The first checkpoint of a resumed padded run may be its last: aim at that one.
      nth: aim === 'checkpoint' ? 1 : random.between(1, 2),
    }),
  );
  return [...plans, { aim: 'finalize', nth: 1 }];
}

export interface Scenario {
  name: string;
  mode: ModeName;
  kills: number;
  aims: Aim[];
}

export const allScenarios: Scenario[] = [
  ...[1, 2, 3, 4].map((index) => ({
    name: `answer-${index}`,
    mode: 'answer' as const,
    kills: 6,
    aims: ['model', 'tool', 'stage', 'checkpoint', 'anywhere'] as Aim[],
  })),
  ...[1, 2, 3].map((index) => ({
    name: `cap-${index}`,
    mode: 'cap' as const,
    kills: 5,
    aims: ['model', 'tool', 'stage', 'checkpoint', 'anywhere'] as Aim[],
  })),
  ...[1, 2].map((index) => ({
    name: `padded-${index}`,
    mode: 'padded' as const,
    kills: 3,
    aims: ['checkpoint', 'checkpoint', 'tool'] as Aim[],
  })),
  ...[1, 2].map((index) => ({
    name: `planned-${index}`,
    mode: 'planned' as const,
    kills: 5,
    aims: ['model', 'tool', 'stage', 'checkpoint'] as Aim[],
  })),
  // Plan steps side by side: kills land while two or three steps' model or tool calls are in flight.
  ...[1, 2].map((index) => ({
    name: `graph-${index}`,
    mode: 'graph' as const,
    kills: 4,
    aims: ['tool', 'model', 'tool'] as Aim[],
  })),
];

/** The whole crash suite on one kind of store: the scenarios, a kill in finalize, and the count of kills made. */
export function describeCrashes(
  kind: LabStore,
  scenarios: readonly Scenario[],
  minimum: { kills: number; resumed: number },
): void {
  beforeAll(async () => {
    lab = await openLab(kind);
  }, 120_000);
  afterAll(() => lab?.dispose(), 60_000);

  describe.concurrent(`a run SIGKILLed at random points (${kind}, CRASH_SEED=${seed})`, () => {
    scenarios.forEach((scenario, index) => {
      it(`${scenario.name}: ${scenario.kills} kills, then resumed until done, equals the uninterrupted run`, async () => {
        onTestFailed(() => console.error(`crash test failed: reproduce with CRASH_SEED=${seed}`));
        const random = seededRandom(seed + index);
        const setup = await lab.setUp(scenario.name, scenario.mode);
        try {
          const plans = killPlans(random, scenario.kills, scenario.aims);
          planned += plans.length;
          const { interruptions, finalResult } = await crashUntilDone(setup, plans, random);
          await expectRecovered(
            setup.store,
            setup.config,
            await lab.reference(scenario.mode),
            interruptions,
            finalResult,
            scenario.mode === 'graph' ? 3 : 1,
          );
          if (scenario.mode === 'graph') {
            // The three independent steps' tool calls were journaled under their own steps, in one iteration.
            const sideBySide = (await setup.store.journal(setup.config.runId)).filter(
              (entry) => entry.kind === 'tool' && /^act#p[123]$/.test(entry.stage ?? ''),
            );
            expect(sideBySide.map((entry) => entry.stage).sort()).toEqual(['act#p1', 'act#p2', 'act#p3']);
            expect(new Set(sideBySide.map((entry) => entry.iteration)).size).toBe(1);
          }
        } finally {
          await lab.tearDown(setup);
        }
      }, 90_000);
    });
  });

  describe('a run killed in finalize', () => {
    it("resumes from the finalize checkpoint and records the summary call at the run's last iteration, as a run never killed does", async () => {
      onTestFailed(() => console.error(`crash test failed: reproduce with CRASH_SEED=${seed}`));
      const setup = await lab.setUp('finalize-call', 'cap');
      try {
        const child = lab.launch(setup, 'start', 1);
        setup.model.onRequest = (request) => request.summary && setTimeout(() => child.kill('SIGKILL'), 5);
        expect((await child.exited).signal).toBe('SIGKILL');
        setup.model.onRequest = undefined;
        kills.push({ aim: 'finalize', nth: 1, attempt: 1, resumed: false });
        const interruptions = [
          {
            attempt: 1,
            journalAfter: await setup.store.journal(setup.config.runId),
            acknowledged: lastAcknowledged(child.lines),
          },
        ];
        expect((await setup.store.latestCheckpoint(setup.config.runId))?.position.zone).toBe('finalize');
        const resumed = lab.launch(setup, 'resume', 2);
        expect((await resumed.exited).code).toBe(0);
        const summaryCall = (await setup.store.journal(setup.config.runId)).filter(
          (entry) => entry.kind === 'model' && entry.zone === 'finalize',
        );
        expect(summaryCall.map((entry) => entry.iteration)).toEqual([modes.cap.maxIterations]);
        await expectRecovered(setup.store, setup.config, await lab.reference('cap'), interruptions, resultOf(resumed));
      } finally {
        await lab.tearDown(setup);
      }
    }, 30_000);
  });

  describe('over the whole file', () => {
    it(`killed at least ${minimum.kills} times, resumes included, at each kind of point`, () => {
      const byAim = Object.fromEntries(
        (['model', 'tool', 'stage', 'checkpoint', 'finalize', 'anywhere'] as const).map((aim) => [
          aim,
          kills.filter((kill) => kill.aim === aim).length,
        ]),
      );
      const atCheckpoints = kills.filter((kill) => kill.checkpointCommitted !== undefined);
      const beforeCommit = atCheckpoints.filter((kill) => kill.checkpointCommitted === false).length;
      console.log(
        `CRASH_SEED=${seed}: ${kills.length} kills of ${planned + 1} planned (${kills.filter((kill) => kill.resumed).length} of resumed processes) by aim ${JSON.stringify(byAim)}, missed ${JSON.stringify(missed)}; ${beforeCommit} of ${atCheckpoints.length} checkpoint kills landed before the write committed`,
      );
      expect(kills.length).toBeGreaterThanOrEqual(minimum.kills);
      expect(kills.filter((kill) => kill.resumed).length).toBeGreaterThanOrEqual(minimum.resumed);
      for (const count of Object.values(byAim)) expect(count).toBeGreaterThanOrEqual(kind === 'sqlite' ? 2 : 1);
    });
  });
}
