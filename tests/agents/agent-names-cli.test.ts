// Agents and tools share one list of names: a config whose agent is named like a tool of the run is refused before
// the run starts, in one line, instead of the agent silently taking the tool's place.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const folder = mkdtempSync(join(tmpdir(), 'stageloop-agent-names-'));

function configWith(agents: object): string {
  const file = join(folder, `config-${Object.keys(agents).join('-')}.json`);
  writeFileSync(file, JSON.stringify({ agents }));
  return file;
}

const agent = (tools: string[], agents: string[] = []) => ({
  description: 'Answers sums.',
  instructions: 'Answer with the sum.',
  tools,
  agents,
});

const runAgent = (name: string, agents: object) =>
  runCli(['run', '--agent', name, '--offline', '--mcp-config', configWith(agents), 'What is 2 + 3?']);

describe('agent names', { timeout: 60_000 }, () => {
  it('an agent named like a built-in tool is refused at load (exit 2), naming it', async () => {
    const result = await runAgent('coordinator', { coordinator: agent(['calculator']), calculator: agent([]) });
    expect(result.stderr).toBe(
      'stageloop: agents.calculator: the agent "calculator" has the name of a tool of this run (the tools are calculator): rename the agent, agents and tools share one list of names\n',
    );
    expect(result.code).toBe(2);
  });

  it('a prototype name is no agent', async () => {
    const team = { coordinator: agent(['calculator']) };
    const result = await runAgent('coordinator', team);
    expect(result.code, result.stderr).toBe(0);
    const asked = await runAgent('constructor', team);
    expect(asked.stderr).toMatch(/^stageloop: no agent named "constructor": the agents are coordinator\n$/);
    expect(asked.code).toBe(2);
  });
});
