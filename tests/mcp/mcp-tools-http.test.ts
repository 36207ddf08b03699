// mcpTools over Streamable HTTP, old SSE and a published server (server-everything), then tool names and content
// text; apart from mcp-tools.test.ts (stdio servers) to keep each file short.
import { describe, expect, it } from 'vitest';
import { mcpTools, mcpToolOrigin, loadMcpTools, prefixedToolName, contentText } from '../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import {
  everythingStdioServer,
  newLogFile,
  startEverythingSse,
  startHttpTestServer,
  waitForLog,
} from '../support/mcp-servers.js';
import { call, useMcpPool } from './mcp-tools-fixtures.js';

const { pool, running } = useMcpPool();

describe('mcpTools over HTTP and from a published server', () => {
  it('Streamable HTTP: calls go through with the configured headers', async () => {
    const log = newLogFile();
    const server = await startHttpTestServer(log);
    running.push(server);
    const tools = await mcpTools({ name: 'web', url: server.url, headers: { 'x-test-token': 'token-123' } }, { pool });
    const registry = new ToolRegistry(tools);
    expect(await registry.execute(call('web__whoami', {}))).toMatchObject({ ok: true, content: 'token-123' });
    expect(await registry.execute(call('web__echo', { text: 'over http' }))).toMatchObject({
      ok: true,
      content: 'over http',
    });
    expect(mcpToolOrigin(tools[0]!)?.transport).toBe(`http: ${server.url}`);
  });

  it('an HTTP server killed mid-call (Streamable HTTP, and old SSE) gives a typed tool error at once, not a wait for the timeout', async () => {
    const log = newLogFile();
    let legacyStarted!: () => void;
    const legacyProgress = new Promise<void>((resolve) => (legacyStarted = resolve));
    const http = await startHttpTestServer(log);
    const sse = await startEverythingSse();
    running.push(http, sse);
    const tools = await loadMcpTools(
      [
        { name: 'web', url: http.url },
        { name: 'legacy', url: sse.url },
      ],
      {
        pool,
        filter: (tool) => tool.name === 'slow' || tool.name === 'trigger-long-running-operation',
        onProgress: (progress) => progress.server === 'legacy' && legacyStarted(),
      },
    );
    const registry = new ToolRegistry(tools, { defaultTimeoutMs: 15_000 });
    const streamable = registry.execute(call('web__slow', { ms: 20_000 }));
    const legacy = registry.execute(call('legacy__trigger-long-running-operation', { duration: 20, steps: 200 }));
    // Both calls are inside their servers: the test server logged it, server-everything reported progress.
    await waitForLog(log, (entry) => entry.event === 'call');
    await legacyProgress;
    http.child.kill('SIGKILL');
    sse.child.kill('SIGKILL');
    for (const result of await Promise.all([streamable, legacy])) {
      expect(result).toMatchObject({
        ok: false,
        error: {
          kind: 'failed',
          retryable: true,
          message: expect.stringContaining('closed the connection during the call'),
        },
      });
      expect(result.durationMs).toBeLessThan(10_000);
    }
  });

  it('server-everything over stdio, and over its old SSE transport through the fallback', async () => {
    const sse = await startEverythingSse();
    running.push(sse);
    const tools = await loadMcpTools([everythingStdioServer(), { name: 'legacy', url: sse.url }], {
      pool,
      filter: (tool) => tool.name === 'get-sum' || tool.name === 'get-tiny-image',
    });
    const registry = new ToolRegistry(tools);
    expect(registry.names).toEqual([
      'everything__get-sum',
      'everything__get-tiny-image',
      'legacy__get-sum',
      'legacy__get-tiny-image',
    ]);
    const [stdioSum, sseSum, image] = await registry.executeAll([
      call('everything__get-sum', { a: 17, b: 25 }),
      call('legacy__get-sum', { a: 1, b: 2 }),
      call('everything__get-tiny-image', {}),
    ]);
    expect(stdioSum).toMatchObject({ ok: true, content: expect.stringContaining('42') });
    expect(sseSum).toMatchObject({ ok: true, content: expect.stringContaining('3') });
    expect(image).toMatchObject({
      ok: true,
      content: expect.stringMatching(/\[image content: image\/png, \d+ bytes, not shown\]/),
    });
  });
});

describe('names and content', () => {
  it('prefixed names stay within 64 characters, with provider-safe characters, long ones kept apart by a hash', () => {
    expect(prefixedToolName('files', 'read_file')).toBe('files__read_file');
    expect(prefixedToolName('files', 'read.file/v2')).toBe('files__read_file_v2');
    const long = prefixedToolName('server', 'x'.repeat(70) + 'a');
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^server__x+_[0-9a-f]{8}$/);
    expect(prefixedToolName('server', 'x'.repeat(70) + 'b')).not.toBe(long);
  });

  it('every content kind becomes text', () => {
    expect(
      contentText({
        content: [
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
          { type: 'resource', resource: { uri: 'file:///b.txt', text: 'bee' } },
          { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAAA', mimeType: 'application/octet-stream' } },
        ],
      }),
    ).toBe(
      '[audio content: audio/wav, 3 bytes, not shown]\n[resource link: file:///a.txt (a.txt), text/plain]\n[resource file:///b.txt]\nbee\n[resource file:///c.bin: application/octet-stream, 3 bytes, not shown]',
    );
    expect(contentText({ content: [], structuredContent: { temperature: 21 } })).toBe('{"temperature":21}');
  });
});
