// The agent-pause tests' team: a chat server playing the coordinator's and researcher's models, the team's deps.
import { z } from 'zod';
import { reactPipeline } from '../../pipelines/react.js';
import { withApproval } from '../../stages/pipeline-policies.js';
import { agentTool } from '../../src/agents/agent-tool.js';
import type { Deps } from '../../src/engine/stage.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { sendReply, startChatServer, type ChatServer } from '../support/chat-server.js';
import { testCalculator } from '../support/stage-tools.js';

/** What a test started, closed after it by `runCleanup` (last started, first closed). */
export const cleanup: Array<() => Promise<void> | void> = [];
export async function runCleanup(): Promise<void> {
  for (const step of cleanup.splice(0).reverse()) await step();
}

/**
 * The coordinator asks the researcher and counts once in the same turn, then answers with both results; the
 * researcher asks the calculator (which needs approval), then answers with what it got.
 */
const askResearcherAndCount = [
  { id: 'call_r', name: 'researcher', arguments: JSON.stringify({ task: 'What is 6 * 7?' }) },
  { id: 'call_c', name: 'count', arguments: '{}' },
];

export async function startTeamModel(
  firstCalls = askResearcherAndCount,
): Promise<{ server: ChatServer; asked: string[] }> {
  const server = await startChatServer();
  const asked: string[] = [];
  server.handle((request, response) => {
    const body = request.body;
    const results = body.messages
      .filter((message) => message.role === 'tool')
      .map((message) => String(message.content));
    asked.push(`${body.model}:${results.length}`);
    const usage = { input: 10 + results.length, output: 5 };
    if (body.model === 'coordinator-model') {
      if (results.length === 0) {
        return sendReply(request, response, { toolCalls: firstCalls, usage });
      }
      return sendReply(request, response, { content: `coordinator: ${results.join(' | ')}`, usage });
    }
    if (results.length === 0)
      return sendReply(request, response, {
        toolCalls: [{ id: 'calc_1', name: 'calculator', arguments: JSON.stringify({ expression: '6 * 7' }) }],
        usage,
      });
    return sendReply(request, response, { content: `researcher: ${results[0]!}`, usage });
  }, Number.MAX_SAFE_INTEGER);
  cleanup.push(() => server.close());
  return { server, asked };
}

export function team(serverUrl: string, agentNames = ['researcher']) {
  const model = (name: string) =>
    new OpenAIChatModel({ baseUrl: serverUrl, model: name, apiKey: 'sk-test', maxRetries: 0, timeoutMs: 10_000 });
  const counted: string[] = [];
  const count = defineTool({
    name: 'count',
    description: 'Counts once.',
    parameters: z.object({}),
    execute: () => (counted.push('count'), 'counted'),
  });
  // Every agent asks the researcher's model: it needs the calculator, whose calls need approval.
  const agents = agentNames.map((name) =>
    agentTool({
      name,
      description: 'Works out arithmetic.',
      pipeline: withApproval(reactPipeline(), { tools: ['calculator'] }),
      deps: { model: model('researcher-model'), tools: new ToolRegistry([testCalculator]) },
    }),
  );
  const deps: Partial<Deps> = {
    model: model('coordinator-model'),
    tools: new ToolRegistry([...agents, count]),
    ids: { newId: () => 'team-run' },
    agent: { path: ['coordinator'] },
  };
  return { deps, counted };
}
