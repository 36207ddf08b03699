// The turn reset: a new reasoning turn (of the run, or of a plan step) starts with no calls and no results.
import type { Turn } from '../../src/engine/state.js';

export function emptyTurn(): Turn {
  return { toolCalls: [], results: [] };
}
