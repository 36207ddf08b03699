// The CLI's side of approvals: the terminal prompts that decide live,
// and what is printed when a run pauses.
import { callText } from './readable-json.js';
import { withInvokedName } from './command-name.js';
import { createInterface } from 'node:readline/promises';
import type { Decision, LimitDecision, LimitRequest, ApprovalRequest } from '../../src/durable/decisions.js';
import type { RunResult } from '../../src/engine/runner.js';
import type { Deps } from '../../src/engine/stage.js';
import type { RunRecipe } from '../recipe.js';
import { terminalSafe } from './terminal-text.js';

export interface Terminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

/** When stdin is a terminal, a person decides at the prompt; otherwise nothing is attached and the run pauses. */
export function attachDeciders(deps: Partial<Deps>, recipe: RunRecipe, terminal: Terminal): void {
  if (terminal.input.isTTY !== true) return;
  if (recipe.approvals.tools !== undefined || recipe.approvals.taintPolicy === 'ask')
    deps.approve = (request) => askApproval(terminal, request);
  if (recipe.approvals.askOnLimit) deps.onLimit = (request) => askLimit(terminal, request);
}

async function ask(terminal: Terminal, question: string): Promise<string> {
  const reader = createInterface({ input: terminal.input, output: terminal.output, terminal: false });
  try {
    terminal.output.write(question);
    for await (const line of reader) return line.trim();
    return '';
  } finally {
    reader.close();
  }
}

async function askApproval(terminal: Terminal, request: ApprovalRequest): Promise<Decision | undefined> {
  for (;;) {
    const answer = (
      await ask(
        terminal,
        `\n${terminalSafe(callText(request.tool, request.argumentsJson, 400))} — allow? [y]es / [n]o / [a]lways this tool / [e]dit: `,
      )
    ).toLowerCase();
    if (answer === 'y' || answer === 'yes') return { approve: true };
    if (answer === 'a' || answer === 'always') return { approve: true, always: true };
    if (answer === 'n' || answer === 'no') {
      const message = await ask(terminal, 'why (sent to the model; empty for no reason): ');
      return message === '' ? { approve: false } : { approve: false, message };
    }
    if (answer === 'e' || answer === 'edit') {
      const edited = await ask(terminal, 'arguments as JSON: ');
      return { approve: true, arguments: edited };
    }
    if (answer === '') return undefined; // end of input: pause instead
  }
}

async function askLimit(terminal: Terminal, request: LimitRequest): Promise<LimitDecision | undefined> {
  for (;;) {
    const answer = (
      await ask(
        terminal,
        `\nthe ${request.kind.replace('session_', "session's ")} budget is spent (${round(request.used)} of ${round(request.limit)}) — extend by how much? [NUMBER] / [f]inish now / [s]top: `,
      )
    ).toLowerCase();
    const amount = Number(answer);
    if (answer !== '' && Number.isFinite(amount) && amount > 0)
      return { action: 'extend', by: request.kind === 'time' ? amount * 1000 : amount };
    if (answer === 'f' || answer === 'finish') return { action: 'finish' };
    if (answer === 's' || answer === 'stop') return { action: 'stop' };
    if (answer === '') return undefined;
  }
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(4);
}

/** How to continue a paused run, on stderr. */
export function pausedNotice(result: RunResult): string {
  const pending = result.pending ?? [];
  const lines = [
    `run ${result.runId} is waiting for approval of ${pending.length} tool call${pending.length === 1 ? '' : 's'}:`,
  ];
  // A call an agent of the run waits for says which agent asks; an MCP server's question shows its form's fields.
  for (const item of pending)
    lines.push(
      item.kind === 'elicitation'
        ? `  ${item.id}  the MCP server "${String(item.server)}" asks: ${String(item.message)}${formFields(item.requestedSchema)}`
        : item.kind === 'sampling'
          ? `  ${item.id}  the MCP server "${String(item.server)}" asks the run's model: ${String(item.message).slice(0, 200)}`
          : `  ${item.id}  ${callText(String(item.tool), item.arguments)}${typeof item.agent === 'string' ? `  (agent ${item.agent})` : ''}`,
    );
  lines.push(
    `continue with: stageloop approve ${result.runId} [ID...] | stageloop reject ${result.runId} ID --message "..." | stageloop resume ${result.runId}`,
  );
  if (pending.some((item) => item.kind === 'elicitation'))
    lines.push(
      `answer a server: stageloop approve ${result.runId} ID --answer '{"FIELD": "VALUE"}' | stageloop reject ${result.runId} ID [--cancel]`,
    );
  return terminalSafe(withInvokedName(lines.join('\n')));
}

/** The fields of a server's form, for the notice: ` (fields: name*, email)` with * on the required ones. */
function formFields(schema: unknown): string {
  const form = (schema ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
  const names = Object.keys(form.properties ?? {}).map((name) => (form.required?.includes(name) ? `${name}*` : name));
  return names.length === 0 ? '' : ` (fields: ${names.join(', ')})`;
}
