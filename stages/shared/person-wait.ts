// Time a run spends waiting for a person (an approval asked inline, or a pause until someone decides), which the time budget does not count. A leaf: budget and approval both use it.
import type { StageContext } from '../../src/engine/stage.js';
import type { RunState } from '../../src/engine/state.js';

export interface PersonWaitSlot {
  /** Milliseconds spent waiting for people so far. */
  waitedMs: number;
  /** When the current wait began (a paused run keeps it until it is resumed). */
  since?: number;
  /** The time budget's deadline without the waits, as budget armed it. */
  deadline?: { at: number; reason: string; kind: string };
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    personWait: PersonWaitSlot;
  }
}

/** Far enough to never fire during a wait, near enough for a timer (a delay past 2^31 ms fires at once). */
const duringWaitMs = 2_000_000_000;

export function waitedMs(state: RunState): number {
  return state.personWait?.waitedMs ?? 0;
}

/** Arms the run's deadline at `at` plus the time already spent waiting for people, and keeps it for the next wait. */
export function armDeadline(state: RunState, ctx: StageContext, at: number, reason: string, kind: string): void {
  const slot = (state.personWait ??= { waitedMs: 0 });
  slot.deadline = { at, reason, kind };
  ctx.setDeadline(at + slot.waitedMs, reason, kind);
}

/** A wait for a person begins: the deadline stands still until it ends. Without a time budget nothing is read. */
export function waitBegins(state: RunState, ctx: StageContext): void {
  const slot = state.personWait;
  if (slot?.deadline === undefined || slot.since !== undefined) return;
  slot.since = ctx.deps.clock.now();
  ctx.setDeadline(slot.since + duringWaitMs, slot.deadline.reason, slot.deadline.kind);
}

/** The wait ended (an answer came, or the paused run was resumed): its time is added, the deadline moves by it. */
export function waitEnds(state: RunState, ctx: StageContext): void {
  const slot = state.personWait;
  if (slot?.since === undefined) return;
  slot.waitedMs += Math.max(0, ctx.deps.clock.now() - slot.since);
  delete slot.since;
  if (slot.deadline !== undefined)
    ctx.setDeadline(slot.deadline.at + slot.waitedMs, slot.deadline.reason, slot.deadline.kind);
}
