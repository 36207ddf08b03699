// One short line of progress per run event a person would want to follow (tool calls, plan, steps), or nothing.
import type { RunEvent } from '../../engine/stage.js';

export function progressLineOf(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'plan_created':
      return `Plan: ${event.data.steps.map((step, index) => `${index + 1}. ${step.description}`).join(' ')}`;
    case 'step_started':
      return `Step ${event.data.step}: ${event.data.description}`;
    case 'step_finished':
      return `Step ${event.data.step} ${event.data.outcome}: ${event.data.result}`;
    case 'tool_call':
      return `Calling ${event.data.name}(${event.data.arguments})`;
    case 'tool_result':
      return event.data.ok
        ? `${event.data.name} returned ${event.data.result}`
        : `${event.data.name} failed: ${event.data.error.message}`;
    case 'tool_progress':
      return `${event.data.name}: ${event.data.progress}${event.data.total === undefined ? '' : ` of ${event.data.total}`}${event.data.message === undefined ? '' : ` (${event.data.message})`}`;
    case 'approval_requested':
      return `Waiting for approval of ${event.data.tool} (${event.data.id})`;
    default:
      return undefined;
  }
}
