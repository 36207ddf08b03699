import { describe, expect, it } from 'vitest';
import { recordModelFailure } from '../../../stages/shared/model-failure.js';
import { ModelError } from '../../../src/model/types.js';
import { makeState } from '../../support/helpers.js';

describe('recordModelFailure', () => {
  it('records a ModelError with the iteration and the stage, and hands the error back', () => {
    const state = makeState({ iteration: 3 });
    const error = new ModelError('rate_limited', 'too many requests');
    expect(recordModelFailure(state, 'think', error)).toBe(error);
    expect(state.modelFailure).toEqual({ kind: 'rate_limited', iteration: 3, stage: 'think' });
  });

  it("anything else is not the model's failure: nothing is recorded, the latest failure stays", () => {
    const state = makeState();
    recordModelFailure(state, 'plan', new ModelError('timeout', 'slow'));
    const bug = new TypeError('a bug');
    expect(recordModelFailure(state, 'replan', bug)).toBe(bug);
    expect(state.modelFailure).toEqual({ kind: 'timeout', iteration: 0, stage: 'plan' });
  });
});
