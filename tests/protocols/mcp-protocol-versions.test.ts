// Both protocol eras against stageloop's MCP server (on @modelcontextprotocol/server 2.x): the SDK v1 client
// (@modelcontextprotocol/sdk 1.32.2, which speaks 2025-11-25) and the v2 client (@modelcontextprotocol/client 2.4.0
// with versionNegotiation auto, which opens with server/discover and gets 2026-07-28), each over stdio (`stageloop mcp`,
// the compiled CLI) and over /mcp of a real serve. Each asserts the version it negotiated, then lists the tools, calls
// one, reads the run as a resource, fills a prompt and completes its argument.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { cliPath } from '../support/run-cli.js';
import { useServes } from '../server/serve-support.js';

const serves = useServes();

/** What both SDKs' clients share for this test, and the version each negotiated. */
interface Host {
  version: string | undefined;
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; text?: unknown }> }>;
  getPrompt(params: { name: string; arguments: Record<string, string> }): Promise<{ messages: unknown[] }>;
  complete(params: {
    ref: { type: 'ref/prompt'; name: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[] } }>;
  close(): Promise<void>;
}

const stdioCommand = (home: string) => ({
  command: process.execPath,
  args: [cliPath, 'mcp'],
  env: { PATH: process.env.PATH!, STAGELOOP_HOME: home },
});

/** The protocolVersion of the server's initialize answer, read where the v1 client's transport hands messages on. */
function answeredVersion(transport: {
  onmessage?: (message: never, ...rest: never[]) => void;
}): () => string | undefined {
  let version: string | undefined;
  let handler: typeof transport.onmessage;
  Object.defineProperty(transport, 'onmessage', {
    get: () => handler,
    set: (given: typeof handler) => {
      handler = (message, ...rest) => {
        const answered = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
        if (typeof answered === 'string') version = answered;
        given?.(message, ...rest);
      };
    },
  });
  return () => version;
}

const clients: Record<string, (where: { url?: string; home?: string }) => Promise<Host>> = {
  'SDK v1 client': async ({ url, home }) => {
    const client = new ClientV1({ name: 'stageloop-test-v1', version: '1.0.0' });
    const transport = url !== undefined ? new HttpV1(new URL(`${url}/mcp`)) : new StdioV1(stdioCommand(home!));
    const version = answeredVersion(transport);
    await client.connect(transport);
    return Object.assign(client as unknown as Host, { version: version() });
  },
  'SDK v2 client (versionNegotiation auto)': async ({ url, home }) => {
    const client = new ClientV2(
      { name: 'stageloop-test-v2', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(url !== undefined ? new HttpV2(new URL(`${url}/mcp`)) : new StdioV2(stdioCommand(home!)));
    return Object.assign(client as unknown as Host, { version: client.getNegotiatedProtocolVersion() });
  },
};
const expectedVersion: Record<string, string> = {
  'SDK v1 client': '2025-11-25',
  'SDK v2 client (versionNegotiation auto)': '2026-07-28',
};

/** Everything one host does, the same on both eras. */
async function exercise(host: Host): Promise<void> {
  const { tools } = await host.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(['plan-execute-replan', 'react']);
  const result = (await host.callTool({ name: 'react', arguments: { task: 'What is 12 * 12?' } })) as {
    content: Array<{ text: string }>;
    _meta: Record<string, string>;
  };
  expect(result.content[0]!.text).toContain('144');
  const runId = result._meta['stageloop/runId']!;
  expect(result._meta['stageloop/status']).toBe('completed');
  const read = await host.readResource({ uri: `stageloop://runs/${runId}` });
  expect(JSON.parse(String(read.contents[0]!.text))).toMatchObject({ run: { runId, status: 'completed' } });
  const timeline = await host.readResource({ uri: `stageloop://runs/${runId}/timeline` });
  expect(String(timeline.contents[0]!.text)).toMatch(new RegExp(`^run ${runId}: completed\n`));
  const prompt = await host.getPrompt({ name: 'react', arguments: { task: 'What is 12 * 12?' } });
  expect(JSON.stringify(prompt.messages)).toContain('What is 12 * 12?');
  const completed = await host.complete({
    ref: { type: 'ref/prompt', name: 'react' },
    argument: { name: 'task', value: 'what is 1' },
  });
  expect(completed.completion.values).toEqual(['What is 12 * 12?']);
}

describe.each(Object.keys(clients))('%s against stageloop as an MCP server', (name) => {
  it(`negotiates ${expectedVersion[name]} over stdio and uses every feature`, async () => {
    const home = mkdtempSync(join(tmpdir(), 'stageloop-mcp-eras-'));
    const host = await clients[name]!({ home });
    try {
      expect(host.version).toBe(expectedVersion[name]);
      await exercise(host);
    } finally {
      await host.close();
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);

  it(`negotiates ${expectedVersion[name]} over /mcp and uses every feature`, async () => {
    const serve = await serves.start();
    const host = await clients[name]!({ url: serve.running.url });
    try {
      expect(host.version).toBe(expectedVersion[name]);
      await exercise(host);
    } finally {
      await host.close();
    }
  }, 120_000);
});
