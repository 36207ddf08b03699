// The server-everything sweep: every tool of the pinned @modelcontextprotocol/server-everything is called by a ReAct
// run (a scripted loopback model asks for each), and each result reaches the run's conversation. That includes the
// tools the server shows only to a client with capabilities (roots, elicitation, sampling), the task-only one, and the
// two "-async" ones, whose sampling and elicitation requests stageloop runs as tasks of its own (client-tasks.ts).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { runPipeline } from '../../src/engine/runner.js';
import {
  McpServerPool,
  loadMcpTools,
  type McpClientHandlers,
  type McpElicitationAnswer,
  type McpProgress,
  type McpServer,
} from '../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { everythingStdioServer, repositoryRoot } from '../support/mcp-servers.js';

const loopback = useLoopbackServer({ timeoutMs: 10_000 });
const pool = new McpServerPool();
afterEach(() => pool.closeAll());

const pinned = JSON.parse(
  readFileSync(`${repositoryRoot}/node_modules/@modelcontextprotocol/server-everything/package.json`, 'utf8'),
) as { version: string };

/** server-everything with a root, so that it shows its roots tool. */
const everything: McpServer = { ...everythingStdioServer(), roots: [{ uri: 'file:///tmp/work', name: 'work' }] };

/** One call per tool, with arguments that need no network (gzip gets a data: URI). */
const sweepCalls: Record<string, Record<string, unknown>> = {
  echo: { message: 'sweep' },
  'get-annotated-message': { messageType: 'success', includeImage: true },
  'get-env': {},
  'get-resource-links': { count: 2 },
  'get-resource-reference': { resourceType: 'Text', resourceId: 2 },
  'get-structured-content': { location: 'Chicago' },
  'get-sum': { a: 17, b: 25 },
  'get-tiny-image': {},
  'gzip-file-as-resource': { name: 'hello.txt.gz', data: 'data:text/plain;base64,aGVsbG8gc3dlZXA=' },
  'toggle-simulated-logging': {},
  'toggle-subscriber-updates': {},
  'trigger-long-running-operation': { duration: 1, steps: 2 },
  'get-roots-list': {},
  'trigger-elicitation-request': {},
  'trigger-url-elicitation': { url: 'https://example.com/consent' },
  'trigger-sampling-request': { prompt: 'Say hi', maxTokens: 10 },
  'trigger-elicitation-request-async': {},
  'trigger-sampling-request-async': { prompt: 'Say hi', maxTokens: 10 },
  'simulate-research-query': { topic: 'tides' },
};

async function sweep(handlers?: McpClientHandlers) {
  const progress: McpProgress[] = [];
  const tools = await loadMcpTools([everything], {
    pool,
    onProgress: (each) => progress.push(each),
    ...(handlers && { handlers }),
  });
  const names = tools.map((tool) => tool.name.replace('everything__', ''));
  loopback.server
    .replyWithToolCalls(
      names.map((name, index) => ({
        name: `everything__${name}`,
        arguments: JSON.stringify(sweepCalls[name]),
        id: `call_${index}`,
      })),
    )
    .replyWith({ content: 'Swept.' });
  const deps = { model: loopback.model(), tools: new ToolRegistry(tools) };
  const result = await runPipeline(reactPipeline(), { task: 'Use every tool once' }, { deps });
  loopback.server.assertConsumed();
  const toolMessages = loopback.server.lastBody!.messages.filter((message) => message.role === 'tool');
  const answers = Object.fromEntries(
    toolMessages.map((message) => [names[Number(message.tool_call_id!.slice(5))]!, String(message.content)]),
  );
  return { result, names, answers, progress };
}

describe(`server-everything ${pinned.version}: every tool through a run`, () => {
  it('each result reaches the run; with no person and no model, elicitation is declined and sampling refused', async () => {
    const { result, names, answers, progress } = await sweep();
    // Listed: all 19, the two "-async" ones too (shown only to a client that declares `tasks.requests`).
    expect(names.sort()).toEqual(Object.keys(sweepCalls).sort());
    expect(names).toHaveLength(19);
    expect(result).toMatchObject({ status: 'completed', answer: 'Swept.' });
    expect(answers).toMatchObject({
      echo: 'Echo: sweep',
      'get-annotated-message': expect.stringMatching(
        /Operation completed successfully[\s\S]*\[image content: image\/png/,
      ),
      'get-env': expect.stringContaining('"PATH"'),
      'get-resource-links': expect.stringMatching(/\[resource link: demo:\/\/resource\/dynamic\/\w+\/1/),
      'get-resource-reference': expect.stringMatching(/\[resource demo:\/\/resource\/dynamic\/text\/2\]\nResource 2: /),
      'get-structured-content': expect.stringContaining('"conditions"'),
      'get-sum': expect.stringContaining('42'),
      'get-tiny-image': expect.stringContaining('[image content: image/png'),
      'gzip-file-as-resource': expect.stringMatching(/\[resource link: .*hello\.txt\.gz/),
      'toggle-simulated-logging': expect.stringMatching(/Started simulated/),
      'toggle-subscriber-updates': expect.stringMatching(/Started simulated resource updated/),
      'trigger-long-running-operation': expect.stringContaining('Long running operation completed'),
      'get-roots-list': expect.stringMatching(/Current MCP Roots \(1 total\)[\s\S]*work[\s\S]*file:\/\/\/tmp\/work/),
      'trigger-elicitation-request': expect.stringMatching(/declined/i),
      'trigger-url-elicitation': expect.stringMatching(/declin/i),
      'trigger-sampling-request': expect.stringMatching(/^Error \(failed\).*no model to sample with for "everything"/s),
      // The server polled the task stageloop made of its request (tasks/get), then read its end (tasks/result).
      'trigger-elicitation-request-async': expect.stringMatching(/\[DECLINED\][\s\S]*Task created: [\s\S]*"decline"/),
      'trigger-sampling-request-async': expect.stringMatching(/\[FAILED\] .*no model to sample with for "everything"/),
      'simulate-research-query': expect.stringContaining('# Research Report: tides'),
    });
    // The long operation reported its steps (a progress token went with the call). The last one may be lost: it comes
    // with the result, and the SDK drops a call's progress handler once the result is read.
    expect(progress).toContainEqual({
      server: 'everything',
      tool: 'trigger-long-running-operation',
      progress: 1,
      total: 2,
    });
  }, 60_000);

  it('with handlers (mcpTools `handlers`), a person answers the forms and a model the sampling request', async () => {
    const asked: string[] = [];
    const handlers: McpClientHandlers = {
      elicit: async (request): Promise<McpElicitationAnswer> => {
        asked.push(request.mode ?? 'form');
        if (request.mode === 'url') return { action: 'accept' };
        if ('interpretation' in (request.requestedSchema.properties ?? {}))
          return { action: 'accept', content: { interpretation: 'ocean tides' } };
        return { action: 'accept', content: { name: 'Ada', check: true, email: 'ada@example.com' } };
      },
      sample: async (request) => ({
        role: 'assistant',
        content: { type: 'text', text: `sampled: ${request.messages.length} message(s)` },
        model: 'test-model',
        stopReason: 'endTurn',
      }),
    };
    sweepCalls['simulate-research-query'] = { topic: 'tides', ambiguous: true };
    try {
      const { result, answers } = await sweep(handlers);
      expect(result.status).toBe('completed');
      expect(answers['trigger-elicitation-request']).toMatch(/User provided the requested information[\s\S]*Name: Ada/);
      expect(answers['trigger-url-elicitation']).toMatch(/accept/i);
      expect(answers['trigger-sampling-request']).toContain('sampled: 1 message(s)');
      expect(answers['trigger-elicitation-request-async']).toMatch(/\[COMPLETED\] User provided[\s\S]*Name: Ada/);
      expect(answers['trigger-sampling-request-async']).toMatch(
        /\[COMPLETED\] Async sampling[\s\S]*sampled: 1 message/,
      );
      // The task-only tool asked its question through the task's result stream, and used the answer.
      expect(answers['simulate-research-query']).toContain('# Research Report: tides (ocean tides)');
      expect(asked.sort()).toEqual(['form', 'form', 'form', 'url']);
    } finally {
      sweepCalls['simulate-research-query'] = { topic: 'tides' };
    }
  }, 60_000);
});
