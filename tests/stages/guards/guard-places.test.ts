import { describe, expect, it } from 'vitest';
import { codeOf } from '../../../src/common/stageloop-error.js';
import { definePipeline, stageNames } from '../../../src/engine/pipeline.js';
import type { Stage } from '../../../src/engine/stage.js';
import { noGuardPlaces, placeGuards, requireStage } from '../../../stages/guards/guard-places.js';

const stage = (name: string): Stage => ({ name, execute: () => undefined });

const loop = () =>
  definePipeline({
    name: 'loop',
    setup: [stage('context'), stage('history')],
    iteration: [stage('think'), stage('act'), stage('observe')],
    finalize: [stage('summarize')],
    maxIterations: 4,
  });

describe('placeGuards', () => {
  it('puts each guard in its place, a limits stage first, and raises the cap above the budget', () => {
    const places = noGuardPlaces();
    places.setupFront.push(stage('budget-start'));
    places.afterHistory.push(stage('history-guard'));
    places.beforeThink.push(stage('budget'));
    places.beforeAct.push(stage('loop-guard'));
    places.afterAct.push(stage('loop-guard-history'));
    const guarded = placeGuards(loop(), places, 6, false);
    expect(guarded.setup.map((each) => each.name)).toEqual([
      'limits',
      'budget-start',
      'context',
      'history',
      'history-guard',
    ]);
    expect(guarded.iteration.map((each) => each.name)).toEqual([
      'budget',
      'think',
      'loop-guard',
      'act',
      'loop-guard-history',
      'observe',
    ]);
    expect(guarded.maxIterations).toBe(7);
  });

  it('replaces a guard already there in place, and gives back the same pipeline when nothing is placed', () => {
    const pipeline = loop();
    expect(placeGuards(pipeline, noGuardPlaces(), undefined, false)).toBe(pipeline);
    const reported = placeGuards(pipeline, noGuardPlaces(), undefined, true);
    expect(stageNames(reported)[0]).toBe('limits');
    const places = noGuardPlaces();
    const replacement = stage('think');
    places.beforeThink.push(replacement);
    const replaced = placeGuards(pipeline, places, undefined, false);
    expect(replaced.iteration[0]).toBe(replacement);
    expect(replaced.iteration.map((each) => each.name)).toEqual(['think', 'act', 'observe']);
  });

  it('requireStage names the setting and the stages the pipeline has', () => {
    expect(() => requireStage(loop(), 'act', 'loopLimit')).not.toThrow();
    let caught: unknown;
    try {
      requireStage(loop(), 'plan', '--loop-limit');
    } catch (error) {
      caught = error;
    }
    expect(codeOf(caught)).toBe('config');
    expect((caught as Error).message).toBe(
      '--loop-limit needs a pipeline with an "plan" stage; "loop" has: context, history, think, act, observe, summarize',
    );
  });
});
