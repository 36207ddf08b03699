// `stageloop tools`: built-in and MCP tools with their origins, from a real config file and real servers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type Tool } from '../../src/tools/define-tool.js';
import { parseToolsFlags, toolsCommand, type ToolListing } from '../../app/cli/tools-command.js';
import { CONFIG_FILE_NAME } from '../../app/config.js';
import { testCalculator } from '../support/stage-tools.js';
import type { McpStdioServer } from '../../src/tools/mcp/index.js';
import { everythingStdioServer, newLogFile, stdioTestServer } from '../support/mcp-servers.js';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}

async function runTools(
  argv: string[],
  config: unknown,
  env: Record<string, string> = {},
  builtIn: Tool[] = [testCalculator],
) {
  const cwd = mkdtempSync(join(tmpdir(), 'stageloop-tools-'));
  writeFileSync(join(cwd, CONFIG_FILE_NAME), JSON.stringify(config));
  const stdout = capture();
  const stderr = capture();
  const flags = parseToolsFlags(argv);
  if (flags === 'help') throw new Error('unexpected help');
  const code = await toolsCommand(flags, {
    builtIn,
    env,
    cwd,
    streams: { stdout: stdout.stream, stderr: stderr.stream },
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const { name: _test, ...testServer } = stdioTestServer(newLogFile());
const everything = everythingStdioServer() as McpStdioServer;

describe('stageloop tools', () => {
  it('lists built-in tools and each server tool with its origin; --mcp adds a server', async () => {
    const { code, stdout, stderr } = await runTools(
      ['--mcp', `extra=${process.execPath} ${everything.args!.join(' ')}`],
      { mcpServers: { test: testServer } },
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^calculator\s+built-in\n\s+Evaluates an arithmetic expression/);
    expect(stdout).toMatch(/\ntest__echo\s+mcp test \(stdio: .*mcp-test-server\.ts\)\n\s+Returns its text\./);
    expect(stdout).toMatch(/\nextra__get-sum\s+mcp extra \(stdio: .*server-everything\/dist\/index\.js stdio\)/);
  });

  it('--json gives one array; a server that cannot start is one stderr line without its secrets, the rest still listed', async () => {
    const secret = 'tok-4f7c2a9e81';
    const broken = {
      command: process.execPath,
      args: ['-e', 'console.error("starting with " + process.env.TOKEN); process.exit(3)'],
      env: { TOKEN: '${MY_TOKEN}' },
    };
    const { code, stdout, stderr } = await runTools(
      ['--json'],
      { mcpServers: { test: testServer, broken } },
      { MY_TOKEN: secret },
    );
    expect(code).toBe(1);
    const listing = JSON.parse(stdout) as ToolListing[];
    expect(listing[0]).toEqual({
      name: 'calculator',
      description: testCalculator.description,
      origin: { kind: 'built-in' },
    });
    expect(listing.find((tool) => tool.name === 'test__slow')).toMatchObject({
      origin: { kind: 'mcp', server: 'test', tool: 'slow' },
    });
    expect(stderr).toMatch(
      /^stageloop: Cannot start MCP server "broken" \(stdio: .*\): .*starting with \[redacted\]\)\n$/,
    );
    expect(stderr).not.toContain(secret);
  });

  it('a server tool named like a built-in one is reported: a run would refuse it', async () => {
    const clash = defineTool({
      name: 'test__echo',
      description: 'A built-in tool with an unlucky name.',
      parameters: z.object({}),
      execute: () => 'x',
    });
    const { code, stderr } = await runTools(['--json'], { mcpServers: { test: testServer } }, {}, [clash]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^stageloop: two tools are named "test__echo" \(built-in and mcp test \(stdio: .*\)\); rename a server or filter its tools\n$/,
    );
  });

  it('flags: --help, and an unknown flag is a usage error', () => {
    expect(parseToolsFlags(['--help'])).toBe('help');
    expect(parseToolsFlags(['--mcp-config', 'x.json', '--mcp', 'a=b', '--mcp', 'c=d'])).toEqual({
      json: false,
      configFile: 'x.json',
      inline: ['a=b', 'c=d'],
    });
    expect(() => parseToolsFlags(['--jsn'])).toThrow(
      /--jsn is not an option of this command: run "stageloop tools --help" for the options/,
    );
  });
});
