// A stage whose dependency is optional skips itself when the run lacks it, and says so in a warning event: the run
// goes on without what the stage would have done (the eight-stage document's "anything not injected is skipped").
import type { StageContext } from '../../src/engine/stage.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    stage_skipped: { missing: string; effect: string; fix: string };
  }
}

/** Emits `stage_skipped` for the stage in `ctx`: which port is missing, what the run goes without, and the fix. */
export function skipStage(ctx: StageContext, missing: string, effect: string, fix: string): void {
  ctx.emit('stage_skipped', { missing, effect, fix });
}
