// The workspace slot's type file: importing it (types only) gives RunState its `workspace` slot.
import { describe, expectTypeOf, it } from 'vitest';
import type { RunState } from '../../../src/engine/state.js';
import type { WorkspaceSlot } from '../../../stages/workspace/workspace-slot.js';

describe('the workspace slot', () => {
  it('is RunState.workspace, with the files shown, the skills offered and the skills loaded', () => {
    expectTypeOf<RunState['workspace']>().toEqualTypeOf<WorkspaceSlot | undefined>();
    expectTypeOf<WorkspaceSlot['loaded']>().toEqualTypeOf<string[]>();
  });
});
