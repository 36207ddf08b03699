// Live progress on stderr, rendered from run events: stages, the plan and its statuses, tool calls, verdicts, replans.
import type { RunEvent } from '../engine/stage.js';
import { terminalSafe } from './terminal-text.js';

interface PlanStepView {
  description: string;
  status: string;
}

const statusMarks: Record<string, string> = { pending: '[ ]', in_progress: '[>]', completed: '[x]', failed: '[!]', partial: '[~]' };
const quietStages = new Set(['context', 'act', 'observe']);

function text(value: unknown, limit = 160): string {
  const raw = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  const single = raw.replace(/\s+/g, ' ').trim();
  return single.length > limit ? `${single.slice(0, limit - 1)}…` : single;
}

function planLines(steps: unknown): string[] {
  if (!Array.isArray(steps)) return [];
  return (steps as PlanStepView[]).map((step, index) => `    ${statusMarks[step.status] ?? `[${step.status}]`} ${index + 1}. ${text(step.description, 120)}`);
}

/** Returns an onEvent handler writing one or a few lines per interesting event. */
export function progressPrinter(stream: NodeJS.WritableStream, options: { color?: boolean } = {}): (event: RunEvent) => void {
  // Every line carries text a model, tool or server wrote: cleaned first, then styled by us.
  const write = (line: string) => stream.write(`${terminalSafe(line)}\n`);
  const writeDim = (line: string) => stream.write(options.color ? `\u001b[2m${terminalSafe(line)}\u001b[22m\n` : `${terminalSafe(line)}\n`);
  return (event) => {
    const data = event.data as Record<string, unknown>;
    switch (event.type) {
      case 'stage_started':
        // Stages that only move data would drown the interesting lines; their work shows as tool calls and results.
        if (!quietStages.has(event.stage ?? '')) writeDim(`${event.zone === 'iteration' ? `[${event.iteration}] ` : ''}${event.stage}`);
        return;
      case 'stage_finished':
        if (data.signal) writeDim(`  ${event.stage} → ${data.signal === 'break_loop' ? 'ends the loop' : 'stops the run'} (${String(data.kind)}): ${text(data.reason)}`);
        return;
      case 'plan_created':
        write(`  plan (${String(data.source)}):`);
        planLines(data.steps).forEach(write);
        return;
      case 'plan_updated':
        write(`  plan: ${text(data.reason)}`);
        planLines(data.steps).forEach(write);
        return;
      case 'plan_fallback':
      case 'plan_repair':
        write(`  ${event.type.replace('_', ' ')}: ${text(data.reason ?? data.problem)}`);
        return;
      case 'tool_call':
        write(`  → ${String(data.name)} ${text(data.arguments)}`);
        return;
      case 'tool_result': {
        const error = data.error as { kind?: string; message?: string } | undefined;
        write(data.ok ? `  ← ${String(data.name)}: ${text(data.result)}` : `  ← ${String(data.name)} failed (${error?.kind}): ${text(error?.message)}`);
        return;
      }
      case 'verdict':
        if (data.verdict !== 'continue') write(`  verdict: ${String(data.verdict)}: ${text(data.reason)}`);
        return;
      case 'replan_decision':
        write(`  replan: ${data.applied ? 'plan rewritten' : 'plan kept'}: ${text(data.reason)}`);
        return;
      case 'step_finished':
        write(`  step ${String(data.step)} ${String(data.outcome)}: ${text(data.result)}`);
        return;
      case 'answer':
      case 'model_reply':
      case 'context_rendered':
      case 'step_started':
      case 'summary':
      case 'run_started':
      case 'run_finished':
        return;
      default:
        // Guards and custom stages: show what they reported rather than hide it.
        write(`  ${event.stage ?? 'run'}: ${event.type.replace(/_/g, ' ')} ${text(data, 200)}`);
    }
  };
}
