import { describe, expect, it } from 'vitest';
import { emptyTurn } from '../../../stages/shared/turn.js';

describe('emptyTurn', () => {
  it('has no calls and no results, and is a new object each time (a turn is written to)', () => {
    expect(emptyTurn()).toEqual({ toolCalls: [], results: [] });
    expect(emptyTurn()).not.toBe(emptyTurn());
    expect(emptyTurn().results).not.toBe(emptyTurn().results);
  });
});
