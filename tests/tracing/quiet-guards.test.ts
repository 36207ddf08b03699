// The quiet rule for recorded runs (`show`, `show --html`, the console): a guard stage's row goes when it did
// nothing, stays when it steered or a call was made inside it; the stages that are not guards always stay.
import { describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/durable/durable-run.js';
import { loadRun } from '../../src/durable/inspect.js';
import { timelineOf } from '../../src/durable/timeline.js';
import { OfflineModel } from '../../src/model/offline-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { isGuardStage, withoutQuietGuards } from '../../src/tracing/quiet-guards.js';
import { reactPipeline } from '../../pipelines/index.js';
import { testCalculator } from '../support/stage-tools.js';

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
