// The run page (console, `stageloop show --html`, eval reports) is untyped browser code: the slots and events it reads
// by name are listed in TypeScript, checked here against the stages' StageSlots and RunEvents, and the scripts are
// checked to read no other name. Renaming a slot, or a field of it the page reads, fails `tsc` on this file.
import { describe, expect, it } from 'vitest';
import type {} from '../../stages/index.js';
import { shownSlots } from '../../app/shown-slots.js';
import type { RunEvents, RunEventType } from '../../src/engine/stage.js';
import type { StageSlots } from '../../src/engine/state.js';
import { consoleEventTypes, consoleScript } from '../../src/server/console/console-script.js';
import { runPageScript } from '../../src/server/console/run-page-script.js';
import { pageSlotNames, type PageSlots } from '../../src/server/run-view.js';

// Compile-time: each slot the page reads is a key of StageSlots whose type holds what the page reads of it.
const slotsHold: { [Name in keyof PageSlots]: StageSlots[Name] extends PageSlots[Name] ? true : false } = {
  plan: true,
  evaluate: true,
  replan: true,
};
// And each event it reads is a run event; the two whose data it reads carry those fields.
const eventsHold: readonly RunEventType[] = consoleEventTypes;
const eventDataHolds: [
  RunEvents['answer'] extends { text: string } ? true : false,
  RunEvents['plan_created' | 'plan_updated'] extends { steps: PageSlots['plan']['steps'] } ? true : false,
] = [true, true];

const scripts = `${runPageScript}\n${consoleScript}`;
const found = (pattern: RegExp) => [...new Set([...scripts.matchAll(pattern)].map((match) => match[1]!))].sort();

describe('the run page reads a typed view', () => {
  it('reads slots by the listed names only, and the application shows them all', () => {
    expect([slotsHold, eventsHold.length, eventDataHolds]).toBeDefined();
    expect(found(/slots\.([A-Za-z_$][\w$]*)/g)).toEqual([...pageSlotNames].sort());
    // No other way in: no computed slot name, no slots read from an object the view did not name.
    expect(scripts).not.toMatch(/slots\s*\[/);
    expect(found(/(\w+)\.slots\b/g)).toEqual(['view']);
    expect(shownSlots).toEqual(expect.arrayContaining([...pageSlotNames]));
  });

  it('reads events by the listed types only', () => {
    expect(found(/event\.type === '([a-z_]+)'/g)).toEqual([...consoleEventTypes].sort());
    expect(found(/event\.data\.(\w+)/g)).toEqual(['steps', 'text']);
  });
});
