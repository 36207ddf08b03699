// Live progress on stderr, rendered from run events: stages, model text as it arrives, the plan, tool calls, verdicts, replans.
import { shortText } from '../../src/common/short-text.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { terminalSafe } from './terminal-text.js';
import { callText, fieldsText } from './readable-json.js';
import { budgetLine, limitsLine } from './budget-lines.js';
import { isGuardAction, isGuardStage } from '../../src/tracing/quiet-guards.js';

const statusMarks: Record<string, string> = {
  pending: '[ ]',
  in_progress: '[>]',
  completed: '[x]',
  failed: '[!]',
  partial: '[~]',
  blocked: '[-]',
  replaced: '[/]',
};
const quietStages = new Set(['context', 'act', 'observe']);
const textIndent = '    ';

function text(value: unknown, limit = 160): string {
  return shortText(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), limit);
}

function planLines(
  steps: ReadonlyArray<{ id?: string; description: string; status: string; dependsOn?: readonly string[] }>,
): string[] {
  return steps.map((step, index) => {
    const id = step.id === undefined ? '' : ` ${step.id}`;
    const after =
      step.dependsOn !== undefined && step.dependsOn.length > 0 ? ` (after ${step.dependsOn.join(', ')})` : '';
    return `    ${statusMarks[step.status] ?? `[${step.status}]`} ${index + 1}.${id} ${text(step.description, 120)}${after}`;
  });
}

/** "[s2] " before a line about work done for one plan step. */
function stepTag(event: RunEvent): string {
  return event.step === undefined ? '' : `[${event.step}] `;
}

/** Returns an onEvent handler writing one or a few lines per interesting event, and model text as it streams in. */
export function progressPrinter(
  stream: NodeJS.WritableStream,
  options: { color?: boolean } = {},
): (event: RunEvent) => void {
  // Every line carries text a model, tool or server wrote: cleaned first, then styled by us.
  // An agent's run (called as a tool) shows inline, each line under its agent path.
  let agent = '';
  const write = (line: string) => stream.write(`${agent}${terminalSafe(line)}\n`);
  const writeDim = (line: string) =>
    stream.write(
      options.color ? `\u001b[2m${agent}${terminalSafe(line)}\u001b[22m\n` : `${agent}${terminalSafe(line)}\n`,
    );
  // Streamed text is written as it comes, indented under its stage line; the next line starts on a fresh line.
  let midLine = false;
  const writeLive = (piece: string) => {
    if (!midLine) stream.write(textIndent);
    stream.write(terminalSafe(piece).replace(/\n/g, `\n${textIndent}`));
    midLine = true;
  };
  // A guard's stage line waits for the guard to act (quiet guards): it is written before its first decision or its
  // signal, and dropped when the guard did nothing. By run, agent and step, as guards of parallel steps interleave.
  const waitingGuards = new Map<string, string>();
  const guardKey = (event: RunEvent) => `${event.runId}\u0000${event.agent ?? ''}\u0000${event.step ?? ''}`;
  const actedGuard = (event: RunEvent) => {
    const line = waitingGuards.get(guardKey(event));
    if (line === undefined) return;
    waitingGuards.delete(guardKey(event));
    writeDim(line);
  };
  return (event) => {
    agent = event.agent === undefined ? '' : `${terminalSafe(event.agent)} │ `;
    if (isGuardStage(event.stage) && event.type !== 'stage_started') {
      if (isGuardAction(event.type) || (event.type === 'stage_finished' && event.data.signal)) actedGuard(event);
      if (event.type === 'stage_finished') waitingGuards.delete(guardKey(event));
    }
    if (event.type === 'text_delta') return writeLive(event.data.text);
    if (midLine && event.type !== 'tool_call_delta') {
      stream.write('\n');
      midLine = false;
    }
    switch (event.type) {
      case 'stage_started': {
        // Stages that only move data would drown the interesting lines; their work shows as tool calls and results.
        if (quietStages.has(event.stage ?? '')) return;
        const line = `${event.zone === 'iteration' ? `[${event.iteration}] ` : ''}${event.stage}`;
        if (isGuardStage(event.stage)) waitingGuards.set(guardKey(event), line);
        else writeDim(line);
        return;
      }
      case 'stage_finished':
        if (event.data.signal)
          writeDim(
            `  ${event.stage} → ${event.data.signal === 'break_loop' ? 'ends the loop' : 'stops the run'} (${String(event.data.kind)}): ${text(event.data.reason)}`,
          );
        return;
      case 'plan_created':
        write(`  plan (${event.data.source}):`);
        planLines(event.data.steps).forEach(write);
        return;
      case 'plan_updated':
        write(
          `  plan: ${text(event.data.reason)}${event.data.running.length > 1 ? ` · running together: ${event.data.running.join(', ')}` : ''}`,
        );
        planLines(event.data.steps).forEach(write);
        return;
      case 'plan_fallback':
        write(`  plan fallback: ${text(event.data.reason)}`);
        return;
      case 'plan_repair':
        write(`  plan repair: ${text(event.data.problem)}`);
        return;
      case 'tool_call':
        write(`  ${stepTag(event)}→ ${callText(event.data.name, event.data.arguments)}`);
        return;
      case 'tool_result': {
        const data = event.data;
        write(
          data.ok
            ? `  ${stepTag(event)}← ${data.name}: ${text(data.result)}`
            : `  ${stepTag(event)}← ${data.name} failed (${data.error.kind}): ${text(data.error.message)}`,
        );
        return;
      }
      case 'tool_progress': {
        // A long MCP call says how far it is: one line per notification, before its result.
        const { name, progress, total, message } = event.data;
        write(
          `  ${stepTag(event)}… ${name}: ${progress}${total === undefined ? '' : ` of ${total}`}${message === undefined ? '' : ` · ${text(message)}`}`,
        );
        return;
      }
      case 'verdict':
        if (event.data.verdict !== 'continue') write(`  verdict: ${event.data.verdict}: ${text(event.data.reason)}`);
        return;
      case 'replan_decision':
        write(`  replan: ${event.data.applied ? 'plan rewritten' : 'plan kept'}: ${text(event.data.reason)}`);
        return;
      case 'approval_requested':
        write(
          `  approval needed: ${callText(event.data.tool, event.data.arguments)} (call ${event.data.id}${event.data.agent === undefined ? '' : `, agent ${event.data.agent}`}): ${text(event.data.reason)}`,
        );
        return;
      case 'approval_decided': {
        const data = event.data;
        const by = data.by === 'person' ? 'by a person' : 'by an earlier "always"';
        const edited = data.edited === true ? ' with edited arguments' : '';
        write(
          `  ${data.approve ? 'approved' : 'rejected'} ${by}${edited}: ${data.tool} (call ${data.id})${data.message === undefined ? '' : `: ${text(data.message)}`}`,
        );
        return;
      }
      case 'step_finished':
        write(`  step ${event.data.id ?? event.data.step} ${event.data.outcome}: ${text(event.data.result)}`);
        return;
      case 'summary':
      case 'model_reply':
      case 'tool_call_delta':
      case 'answer':
      case 'context_rendered':
      case 'step_started':
      case 'run_started':
      case 'run_finished':
        return;
      case 'budget_warning':
      case 'budget_exhausted':
      case 'budget_stop':
      case 'budget_decided':
      case 'session_budget_spent':
        write(`  ${budgetLine(event)}`);
        return;
      case 'limits':
        write(`  ${limitsLine(event.data)}`);
        return;
      default: {
        // Guards and custom stages: show what they reported rather than hide it, as fields rather than JSON; an event
        // named like its stage is labelled once.
        const label = event.type.replace(/_/g, ' ');
        write(
          `  ${event.stage === undefined || event.stage === event.type ? label : `${event.stage}: ${label}`}: ${fieldsText(event.data, 200)}`,
        );
      }
    }
  };
}
