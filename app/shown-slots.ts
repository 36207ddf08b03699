// The state slots a run's page shows (console, `stageloop show --html`, eval reports): the plan-execute-replan
// stages own them; the server is told this list instead of naming stages itself. A small file: no stage is loaded.
export const shownSlots: readonly string[] = Object.freeze(['plan', 'evaluate', 'replan']);
