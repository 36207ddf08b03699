// The config file's agents on stageloop's MCP server, through the SDK client on the real servers: a prompt per agent
// (its description, a `task` argument completed from recorded runs, its instructions as the template) on serve's /mcp
// and on `stageloop mcp` (stdio, config read from its working folder); and a POST /v1/runs that names an agent.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cliPath, runCli } from '../support/run-cli.js';
import { jsonPost, useServes, waitForStatus } from '../server/serve-support.js';

const serves = useServes();
const teamConfig = fileURLToPath(new URL('../../examples/agents/stageloop.config.json', import.meta.url));

describe("the config's agents on the MCP server and in run requests", () => {
  it('/mcp lists a prompt per agent, completes its task and returns its instructions with the task', async () => {
    const serve = await serves.start({}, { config: teamConfig });
    const started = await serve.call('/v1/runs', jsonPost({ task: 'Compute 12 * 7; compute 100 - 58' }));
    await waitForStatus(serve, ((await started.json()) as { runId: string }).runId, ['completed']);
    const client = new Client({ name: 'stageloop-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.running.url}/mcp`)));
    try {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name).sort()).toEqual([
        'coordinator',
        'multiplier',
        'plan-execute-replan',
        'react',
        'reception',
        'subtractor',
        'triage',
      ]);
      const multiplier = prompts.find((prompt) => prompt.name === 'multiplier')!;
      expect(multiplier.description).toMatch(/^Multiplies numbers with the calculator/);
      expect(multiplier.arguments).toEqual([expect.objectContaining({ name: 'task', required: true })]);
      const prompt = await client.getPrompt({ name: 'multiplier', arguments: { task: 'What is 6 * 7?' } });
      expect(prompt.messages).toEqual([
        {
          role: 'user',
          content: {
            type: 'text',
            text: 'You multiply. Use the calculator for every product and answer with the expression and its result.\n\nTask: What is 6 * 7?',
          },
        },
      ]);
      const completed = await client.complete({
        ref: { type: 'ref/prompt', name: 'multiplier' },
        argument: { name: 'task', value: 'compute 1' },
      });
      expect(completed.completion.values).toEqual(['Compute 12 * 7; compute 100 - 58']);
    } finally {
      await client.close();
    }
  });

  it('a run request naming an agent runs that agent; an unknown agent is a one-line 400', async () => {
    const serve = await serves.start({}, { config: teamConfig });
    const started = await serve.call(
      '/v1/runs',
      jsonPost({ task: 'Compute 12 * 7; compute 100 - 58', agent: 'coordinator' }),
    );
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    const view = (await waitForStatus(serve, runId, ['completed'])) as unknown as {
      run: { pipeline: string; options: { recipe: { agent?: string } }; outcome: { answer: string } };
    };
    // The run is the agent (recorded in its recipe, so resume and replay build the same team) on its pipeline.
    expect(view.run.options.recipe.agent).toBe('coordinator');
    expect(view.run.pipeline).toBe('react');
    expect(view.run.outcome.answer).toMatch(/12 \* 7 = 84.*100 - 58 = 42/s);
    const unknown = await serve.call('/v1/runs', jsonPost({ task: 'hello', agent: 'nobody' }));
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe(
      'agent: unknown agent "nobody": choose one of coordinator, triage, reception, multiplier, subtractor',
    );
  });

  it('`stageloop mcp` reads stageloop.config.json in its folder: an agent named like a pipeline is agent-NAME', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-mcp-agents-'));
    writeFileSync(
      join(folder, 'stageloop.config.json'),
      JSON.stringify({
        agents: {
          react: { description: 'Answers in one word.', instructions: 'Answer in one word.' },
          researcher: { description: 'Finds facts.', pipeline: 'plan-execute-replan', instructions: 'Cite sources.' },
        },
      }),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, 'mcp'],
      cwd: folder,
      env: { PATH: process.env.PATH!, STAGELOOP_HOME: folder },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stageloop-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name).sort()).toEqual([
        'agent-react',
        'plan-execute-replan',
        'react',
        'researcher',
      ]);
      expect(prompts.find((prompt) => prompt.name === 'researcher')!.description).toBe(
        'Finds facts. (a stageloop agent on the "plan-execute-replan" pipeline; POST /v1/runs with "agent": "researcher" runs it)',
      );
      const prompt = await client.getPrompt({ name: 'agent-react', arguments: { task: 'Capital of France?' } });
      expect(prompt.messages[0]!.content).toEqual({
        type: 'text',
        text: 'Answer in one word.\n\nTask: Capital of France?',
      });
      const completed = await client.complete({
        ref: { type: 'ref/prompt', name: 'researcher' },
        argument: { name: 'task', value: 'x' },
      });
      expect(completed.completion.values).toEqual([]);
    } finally {
      await client.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('serve and mcp take --mcp-config FILE; a missing one stops them with one line', async () => {
    for (const args of [['serve', '--port', '0'], ['mcp']]) {
      const result = await runCli([...args, '--mcp-config', 'missing.json']);
      expect(result.stderr).toBe('stageloop: --mcp-config missing.json: no such file\n');
      expect(result.code).not.toBe(0);
    }
  });
});
