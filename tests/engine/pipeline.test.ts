import { describe, expect, it } from 'vitest';
import {
  definePipeline,
  insertAfter,
  insertBefore,
  removeStage,
  replaceStage,
  stageNames,
} from '../../src/engine/pipeline.js';
import type { Stage } from '../../src/engine/stage.js';

const noop = (name: string): Stage => ({ name, async execute() {} });
const base = () =>
  definePipeline({
    name: 'demo',
    setup: [noop('context')],
    iteration: [noop('think'), noop('act')],
    finalize: [noop('summarize')],
    maxIterations: 3,
  });

describe('definePipeline', () => {
  it('freezes the three zones', () => {
    const pipeline = base();
    expect(stageNames(pipeline)).toEqual(['context', 'think', 'act', 'summarize']);
    expect(Object.isFrozen(pipeline.iteration)).toBe(true);
  });
  it('rejects a stage name that is not kebab-case, naming it', () => {
    expect(() => definePipeline({ name: 'demo', iteration: [noop('Think_Stage')], maxIterations: 1 })).toThrow(
      /"Think_Stage".*kebab-case/,
    );
  });
  it('rejects duplicate stage names across zones', () => {
    expect(() =>
      definePipeline({ name: 'demo', setup: [noop('think')], iteration: [noop('think')], maxIterations: 1 }),
    ).toThrow(/"think" appears twice \(setup and iteration\)/);
  });
  it('rejects an empty iteration zone', () => {
    expect(() => definePipeline({ name: 'demo', iteration: [], maxIterations: 1 })).toThrow(
      /iteration must hold at least one stage/,
    );
  });
  it.each([0, -1, 1.5, Number.NaN])('rejects maxIterations %s', (maxIterations) => {
    expect(() => definePipeline({ name: 'demo', iteration: [noop('think')], maxIterations })).toThrow(
      /maxIterations must be a positive integer/,
    );
  });
  it('rejects something that is not a stage', () => {
    expect(() =>
      definePipeline({ name: 'demo', iteration: [{ name: 'x' } as unknown as Stage], maxIterations: 1 }),
    ).toThrow(/iteration\[0\] is not a stage/);
  });
});

describe('pipeline editing', () => {
  it('insertBefore and insertAfter return new pipelines and leave the original alone', () => {
    const pipeline = base();
    const guarded = insertBefore(pipeline, 'act', noop('guard'));
    const audited = insertAfter(guarded, 'summarize', noop('audit'));
    expect(stageNames(guarded)).toEqual(['context', 'think', 'guard', 'act', 'summarize']);
    expect(stageNames(audited)).toEqual(['context', 'think', 'guard', 'act', 'summarize', 'audit']);
    expect(stageNames(pipeline)).toEqual(['context', 'think', 'act', 'summarize']);
  });
  it('replaceStage and removeStage', () => {
    const pipeline = base();
    expect(stageNames(replaceStage(pipeline, 'act', noop('act-twice')))).toEqual([
      'context',
      'think',
      'act-twice',
      'summarize',
    ]);
    expect(stageNames(removeStage(pipeline, 'context'))).toEqual(['think', 'act', 'summarize']);
    expect(stageNames(pipeline)).toEqual(['context', 'think', 'act', 'summarize']);
  });
  it('an unknown stage name throws naming the valid ones', () => {
    expect(() => insertBefore(base(), 'thnik', noop('guard'))).toThrow(
      'pipeline "demo" has no stage "thnik"; its stages are: context, think, act, summarize',
    );
  });
  it('an edit that breaks the rules is refused', () => {
    expect(() => insertBefore(base(), 'act', noop('think'))).toThrow(/appears twice/);
  });
});
