// The quiet rule for recorded runs (`show`, `show --html`, the console): a guard stage's row goes when it did
// nothing, stays when it steered or a call was made inside it; the stages that are not guards always stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/durable/durable-run.js';
import { loadRun } from '../../src/durable/inspect.js';
import { timelineOf } from '../../src/durable/timeline.js';
import { OfflineModel } from '../../src/model/offline-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { builtInGuardNames, isGuardStage, withoutQuietGuards } from '../../src/tracing/quiet-guards.js';
import { instrumentDeps } from '../../src/tracing/instrument.js';
import { breakLoop, definePipeline, type Stage } from '../../src/index.js';
import { reactPipeline } from '../../pipelines/index.js';
import { approval } from '../../stages/approval/approval.js';
import { budget } from '../../stages/guards/budget.js';
import { historyDoor, toolDescriptionDoor } from '../../stages/guards/injection/injection-doors.js';
import { injectionGuard } from '../../stages/guards/injection/injection-guard.js';
import { taintGate, taintTracker } from '../../stages/guards/injection/taint.js';
import { limits } from '../../stages/guards/limits.js';
import { loopGuard } from '../../stages/guards/loop-guard.js';
import { prune } from '../../stages/guards/prune.js';
import { sessionBudget } from '../../stages/guards/session-budget.js';
import { testCalculator } from '../support/stage-tools.js';
import { enableAsyncContext, makeTracing } from './span-tree.js';

const stageRows = (items: ReturnType<typeof timelineOf>) =>
  items.filter((item) => item.kind === 'stage').map((item) => `${item.iteration} ${item.stage}`);

describe('withoutQuietGuards', () => {
  it('drops the rows of the default guards that did nothing and keeps every other row', async () => {
    const store = memoryStore();
    const result = await runPipeline(
      reactPipeline(),
      { task: 'What is (2 + 3) * 4?' },
      { store, deps: { model: new OfflineModel(), tools: new ToolRegistry([testCalculator]) } },
    );
    const full = timelineOf(await loadRun(store, result.runId));
    const shown = withoutQuietGuards(full);
    expect(stageRows(full)).toContain('1 budget');
    expect(stageRows(full)).toContain('1 loop-guard-history');
    expect(stageRows(shown).filter((row) => isGuardStage(row.split(' ')[1]))).toEqual([]);
    expect(stageRows(shown)).toEqual(stageRows(full).filter((row) => !isGuardStage(row.split(' ')[1])));
    expect(shown.filter((item) => item.kind !== 'stage')).toEqual(full.filter((item) => item.kind !== 'stage'));
  });

  it("names every guard stage of stages/guards, the session budget too (a plan step's copy included)", () => {
    for (const name of ['budget', 'session-budget', 'session-budget#s1', 'prune', 'loop-guard', 'approval'])
      expect(isGuardStage(name)).toBe(true);
    expect(isGuardStage('think')).toBe(false);
  });

  it('keeps a guard row that steered or had a call inside it', () => {
    const base = { zone: 'iteration', iteration: 1, at: 0, detail: null };
    const items = [
      { ...base, kind: 'stage' as const, stage: 'budget', summary: 'continue' },
      { ...base, kind: 'stage' as const, stage: 'budget', summary: 'ends the loop (budget_tokens): spent' },
      { ...base, kind: 'model' as const, stage: 'injection-guard', summary: 'judge: stop' },
      { ...base, kind: 'stage' as const, stage: 'injection-guard', summary: 'continue' },
      { ...base, kind: 'stage' as const, stage: 'think', summary: 'continue' },
    ];
    expect(withoutQuietGuards(items).map((item) => item.summary)).toEqual([
      'ends the loop (budget_tokens): spent',
      'judge: stop',
      'continue',
      'continue',
    ]);
  });
});

describe('quiet by declaration', () => {
  let disableContext: () => void;
  beforeAll(() => void (disableContext = enableAsyncContext()));
  afterAll(() => disableContext());

  it('every built-in guard stage declares quiet: true, and those are the names a recorded run is shown by', () => {
    const noTools = { get: () => undefined };
    const detector = () => ({ injection: false, score: 0, reasons: [] }) as never;
    const loop = loopGuard();
    const spend = budget({ maxTokens: 1_000 });
    const screen = injectionGuard();
    const guards: Stage[] = [
      limits([], 3),
      sessionBudget({ maxTokens: 1_000 }),
      prune(),
      loop,
      loop.history,
      spend,
      spend.start,
      screen,
      screen.task,
      historyDoor(detector, 'flag'),
      toolDescriptionDoor(detector, 'flag'),
      taintTracker(noTools),
      taintGate(noTools),
      approval(),
    ];
    expect(guards.filter((stage) => stage.quiet !== true).map((stage) => stage.name)).toEqual([]);
    expect(guards.map((stage) => stage.name).sort()).toEqual([...builtInGuardNames].sort());
  });

  it("a user's own guard that declares quiet: true makes no span while it does nothing, and its own span when it acts", async () => {
    const tracing = makeTracing();
    let turn = 0;
    const ownGuard: Stage = {
      name: 'my-guard',
      quiet: true,
      execute: () => (++turn === 2 ? breakLoop('my guard saw enough') : undefined),
    };
    const work: Stage = { name: 'work', execute: () => undefined };
    const pipeline = definePipeline({ name: 'guarded', iteration: [work, ownGuard], maxIterations: 3 });
    const result = await runPipeline(pipeline, { task: 't' }, { deps: instrumentDeps({}, { tracer: tracing.tracer }) });
    expect(result.iterations).toBe(2);
    const guardSpans = tracing.spans().filter((span) => span.name === 'stage my-guard');
    expect(guardSpans.map((span) => span.attributes['stageloop.iteration'])).toEqual([2]);
    expect(guardSpans[0]!.attributes['stageloop.signal']).toBe('break_loop');
    expect(tracing.spans().filter((span) => span.name === 'stage work')).toHaveLength(2);
    // The same rule for its progress lines and timeline rows, in the process that ran it.
    expect(isGuardStage('my-guard')).toBe(true);
  });
});
