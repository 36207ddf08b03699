// The command table: `stageloop --help` lists it and main.ts dispatches on it. A new command is one entry here
// and its own file exporting a CommandModule; the file loads only when its command runs.
import type { Command } from './command.js';

export const commands: readonly Command[] = [
  {
    name: 'run',
    synopsis: 'run [options] "TASK"',
    summary: 'run an agent on a task (recorded in ./.stageloop/stageloop.db unless --no-store)',
    load: async () => (await import('./run-entry.js')).run,
  },
  {
    name: 'runs',
    synopsis: 'runs [--json]',
    summary: 'list the recorded runs, newest first',
    load: async () => (await import('./runs-command.js')).runs,
  },
  {
    name: 'show',
    synopsis: 'show RUN [--json]',
    summary: "a recorded run's timeline: stages, model and tool calls, how it ended",
    load: async () => (await import('./show-command.js')).show,
  },
  {
    name: 'resume',
    synopsis: 'resume RUN',
    summary: 'continue a run whose process died (or that was cancelled) from its last checkpoint',
    load: async () => (await import('./resume-command.js')).resume,
  },
  {
    name: 'replay',
    synopsis: 'replay RUN',
    summary: 'run a recorded run again offline; prints "identical" or where it first differs',
    load: async () => (await import('./resume-command.js')).replay,
  },
  {
    name: 'serve',
    synopsis: 'serve [--port 8787]',
    summary: 'the HTTP API and the web console over the recorded runs',
    load: async () => (await import('./serve-command.js')).serve,
  },
  {
    name: 'mcp',
    synopsis: 'mcp',
    summary: 'every pipeline as an MCP tool over stdio (Claude Desktop, Cursor, VS Code)',
    load: async () => (await import('./mcp-command.js')).mcp,
  },
  {
    name: 'pipelines',
    synopsis: 'pipelines [--json]',
    summary: 'list the built-in pipelines with their three zones and stages',
    load: async () => (await import('./pipelines-command.js')).pipelines,
  },
  {
    name: 'worker',
    synopsis: 'worker --redis URL',
    summary: 'take queued runs from BullMQ on Redis ([--concurrency N] [--queue NAME])',
    load: async () => (await import('./worker-command.js')).worker,
  },
  {
    name: 'submit',
    synopsis: 'submit --redis URL "TASK"',
    summary: 'queue a run, print its id and follow it (run options, --detach, --id ID)',
    load: async () => (await import('./submit-command.js')).submit,
  },
  {
    name: 'approve',
    synopsis: 'approve RUN [ID...]',
    summary: 'approve the calls a paused run waits for (docs/approvals.md)',
    load: async () => (await import('./approve-command.js')).approve,
  },
  {
    name: 'reject',
    synopsis: 'reject RUN ID --message "..."',
    summary: 'reject one of them; the model reads the message',
    load: async () => (await import('./approve-command.js')).reject,
  },
  {
    name: 'tools',
    synopsis: 'tools [--json]',
    summary: 'list every tool a run offers (built-in and MCP servers) with where it comes from',
    load: async () => (await import('./tools-command.js')).tools,
  },
  {
    name: 'agents',
    synopsis: 'agents [--json]',
    summary: 'list the agents of stageloop.config.json (run one with: run --agent NAME "TASK")',
    load: async () => (await import('./agents-command.js')).agents,
  },
  {
    name: 'chat',
    synopsis: 'chat [--session NAME]',
    summary: 'talk to an agent turn by turn; every turn a recorded run of the session',
    load: async () => (await import('./chat-command.js')).chat,
  },
  {
    name: 'eval',
    synopsis: 'eval DATASET [--variant NAME=PIPELINE[:FLAGS]]...',
    summary: 'run a dataset on pipeline variants, grade every run, compare (docs/eval.md)',
    load: async () => (await import('./eval-command.js')).evaluate,
  },
  {
    name: 'facts',
    synopsis: 'facts [list|set|delete] --session NAME',
    summary: 'the durable facts of a session',
    load: async () => (await import('./facts-command.js')).facts,
  },
];

const column = 23;

/** `stageloop --help`: the table, a synopsis too long for the column on a line of its own. */
export function commandList(): string {
  return commands
    .map(({ synopsis, summary }) =>
      synopsis.length < column - 1
        ? `  ${synopsis.padEnd(column)}${summary}`
        : `  ${synopsis}\n  ${' '.repeat(column)}${summary}`,
    )
    .join('\n');
}
