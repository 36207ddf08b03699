// The config file and --mcp: the mcpServers shape, ${VAR} references, one-line errors that never show a value.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE_NAME, loadStageloopConfig, parseConfigText, parseInlineServer } from '../../app/config.js';
import { isStageloopError, type StageloopError } from '../../src/common/stageloop-error.js';

const env = { GITHUB_TOKEN: 'ghp_secretsecretsecret123', API_HOST: 'mcp.example.com' };

function folderWith(config: unknown): string {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-config-'));
  writeFileSync(join(folder, CONFIG_FILE_NAME), typeof config === 'string' ? config : JSON.stringify(config));
  return folder;
}

function errorOf(run: () => unknown): StageloopError {
  try {
    run();
  } catch (error) {
    if (isStageloopError(error) && error.code === 'config') return error;
    throw error;
  }
  throw new Error('expected a config error');
}

describe('the config file', () => {
  it('reads the Claude Desktop / Cursor shape, expanding ${VAR} in env and headers', () => {
    const folder = folderWith({
      mcpServers: {
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
        github: { command: 'github-mcp', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}', MODE: 'read-only' }, cwd: '/srv' },
        remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${env:GITHUB_TOKEN}' } },
        off: { command: 'unused', disabled: true },
      },
      fallback: [{ model: 'gpt-4o-mini', baseUrl: 'http://127.0.0.1:9/v1', apiKey: '${GITHUB_TOKEN}' }],
    });
    const config = loadStageloopConfig({ cwd: folder, env });
    expect(config.file).toBe(join(folder, CONFIG_FILE_NAME));
    expect(config.mcpServers).toEqual([
      { name: 'files', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
      {
        name: 'github',
        command: 'github-mcp',
        env: { GITHUB_TOKEN: env.GITHUB_TOKEN, MODE: 'read-only' },
        cwd: '/srv',
      },
      { name: 'remote', url: 'https://mcp.example.com/mcp', headers: { Authorization: `Bearer ${env.GITHUB_TOKEN}` } },
    ]);
    expect(config.fallback).toEqual([
      { model: 'gpt-4o-mini', baseUrl: 'http://127.0.0.1:9/v1', apiKey: env.GITHUB_TOKEN },
    ]);
  });

  it('no file and no flags: nothing configured; --mcp-config naming a missing file is an error', () => {
    const empty = mkdtempSync(join(tmpdir(), 'stageloop-config-'));
    expect(loadStageloopConfig({ cwd: empty, env })).toEqual({ mcpServers: [], fallback: [], agents: [] });
    expect(() => loadStageloopConfig({ cwd: empty, env, configFile: 'other.json' })).toThrow(
      '--mcp-config other.json: no such file',
    );
    const folder = folderWith({ mcpServers: { a: { command: 'x' } } });
    expect(loadStageloopConfig({ cwd: empty, env, configFile: join(folder, CONFIG_FILE_NAME) }).mcpServers).toEqual([
      { name: 'a', command: 'x' },
    ]);
  });

  it('each mistake is one line naming the place and the fix', () => {
    const at = (text: string) => errorOf(() => parseConfigText(text, 'stageloop.config.json', env)).message;
    expect(at('{ "mcpServers": ')).toMatch(/^stageloop\.config\.json is not valid JSON \(/);
    expect(at('{"mcpServers": []}')).toBe('stageloop.config.json: "mcpServers" must be a JSON object');
    expect(at('{"mcpServers": {"a": {}}}')).toBe(
      'stageloop.config.json: mcpServers.a needs exactly one of "command" (a server to start) and "url" (a server to reach)',
    );
    // A key stageloop does not know (another client's, or a typo) is a warning naming it, not an error.
    expect(parseConfigText('{"mcpServers": {"a": {"command": "x", "arg": []}}}', 'f.json', env).warnings).toEqual([
      'f.json: mcpServers.a: ignored unknown key "arg"',
    ]);
    expect(at('{"mcpServers": {"a": {"command": "x", "args": "-y"}}}')).toBe(
      'stageloop.config.json: mcpServers.a.args must be a list of strings',
    );
    expect(at('{"mcpServers": {"a": {"url": "ftp://x"}}}')).toBe(
      'stageloop.config.json: mcpServers.a.url must be an http:// or https:// URL',
    );
    expect(at('{"mcpServers": {"a b": {"command": "x"}}}')).toMatch(
      /server name "a b" must be letters, digits, _ or -/,
    );
    expect(at('{"fallback": {"model": "x"}}')).toMatch(/"fallback" must be a list/);
  });

  it('an unset variable is named, and no error ever shows a configured value', () => {
    const missing = errorOf(() =>
      parseConfigText(
        JSON.stringify({ mcpServers: { gh: { command: 'x', env: { TOKEN: '${NOT_SET}' } } } }),
        'c.json',
        env,
      ),
    );
    expect(missing.message).toBe(
      'c.json: mcpServers.gh.env.TOKEN uses ${NOT_SET}, which is not set: export NOT_SET before running stageloop',
    );
    const wrongType = errorOf(() =>
      parseConfigText(
        JSON.stringify({ mcpServers: { gh: { url: 'https://x.example', headers: { Authorization: 12345678 } } } }),
        'c.json',
        env,
      ),
    );
    expect(wrongType.message).toBe('c.json: mcpServers.gh.headers.Authorization must be a string');
    expect(wrongType.message).not.toContain('12345678');
  });
});

describe('--mcp NAME=COMMAND', () => {
  it('a command with arguments (quotes keep spaces), or a URL', () => {
    expect(parseInlineServer('files=npx -y @modelcontextprotocol/server-filesystem "/tmp/my folder"')).toEqual({
      name: 'files',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp/my folder'],
    });
    expect(parseInlineServer('tool=my-server')).toEqual({ name: 'tool', command: 'my-server' });
    expect(parseInlineServer('docs=https://example.com/mcp')).toEqual({ name: 'docs', url: 'https://example.com/mcp' });
  });

  it('bad values and a name already in the file are errors', () => {
    expect(() => parseInlineServer('npx server')).toThrow(/^--mcp needs NAME=COMMAND or NAME=URL/);
    expect(() => parseInlineServer('a="unclosed')).toThrow('--mcp a: unbalanced quote in the command');
    const folder = folderWith({ mcpServers: { files: { command: 'x' } } });
    expect(() => loadStageloopConfig({ cwd: folder, env, inline: ['files=y'] })).toThrow(
      /a server named "files" is already configured in .*stageloop\.config\.json/,
    );
    expect(
      loadStageloopConfig({ cwd: folder, env, inline: ['more=y z'] }).mcpServers.map((server) => server.name),
    ).toEqual(['files', 'more']);
  });
});

describe('the config shapes of other MCP clients', () => {
  it("reads VS Code's \"servers\", Cline's timeout/autoApprove, roots and oauth; other clients' keys are warnings", () => {
    const config = parseConfigText(
      JSON.stringify({
        inputs: [],
        servers: {
          files: {
            type: 'stdio',
            command: 'npx',
            args: ['-y', 'server'],
            timeout: 120,
            autoApprove: ['read_file'],
            approveTools: ['list'],
            roots: ['/srv/data', { uri: 'file:///tmp', name: 'scratch' }],
            envFile: '.env',
          },
          remote: { type: 'http', url: 'https://mcp.example.com/mcp', oauth: { clientId: 'abc', scopes: ['read'] } },
          off: { command: 'x', disabled: true, alwaysAllow: [] },
        },
      }),
      '.vscode/mcp.json',
      env,
    );
    expect(config.mcpServers).toEqual([
      {
        name: 'files',
        command: 'npx',
        args: ['-y', 'server'],
        timeout: 120,
        approveTools: ['list', 'read_file'],
        roots: [{ uri: 'file:///srv/data' }, { uri: 'file:///tmp', name: 'scratch' }],
      },
      { name: 'remote', url: 'https://mcp.example.com/mcp', oauth: { clientId: 'abc', scopes: ['read'] } },
    ]);
    expect(config.warnings).toEqual([
      '.vscode/mcp.json: servers.files: ignored unknown key "envFile"',
      '.vscode/mcp.json: servers.off: ignored unknown key "alwaysAllow"',
    ]);
    expect(
      errorOf(() => parseConfigText('{"mcpServers":{"a":{"command":"x","timeout":"soon"}}}', 'f.json', env)).message,
    ).toBe('f.json: mcpServers.a.timeout must be a number of seconds above 0, like 120');
  });
});
