// What a new user hits at the edges: closed pipes, failed runs in quiet mode, bad settings, escape codes in
// model output, a lingering timer, and the --json and --help details.
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonOutput } from '../../app/cli/output.js';
import { definePipeline, runPipeline, type Stage } from '../../src/index.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { cleanEnvironment, cliPath, runCli } from '../support/run-cli.js';

/** Runs `stageloop ARGS | true` in bash: the reader is gone before the CLI writes. Gives the CLI's exit code and stderr. */
function intoClosedPipe(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const command = `"${process.execPath}" "${cliPath}" ${args.map((arg) => `'${arg}'`).join(' ')} | true; exit \${PIPESTATUS[0]}`;
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { env: cleanEnvironment(env) }, (error, _stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stderr }),
    );
  });
}

const noStackTrace = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
const escape = '\u001b';

describe('closed pipes', () => {
  it.each([[['pipelines']], [['--help']], [['run', '-q', 'What is 17 * 23 + 4?']], [['run', 'What is 2 + 2?']]])(
    'stageloop %j | true: no EPIPE trace, exit code unchanged',
    async (args) => {
      const result = await intoClosedPipe(args);
      expect(result.stderr).not.toMatch(/EPIPE|Error/);
      noStackTrace(result.stderr);
      expect(result.code).toBe(0);
    },
  );
});

describe('a run that failed', () => {
  it('--quiet: the one-line error on stderr, exit 1, nothing on stdout', async () => {
    const result = await runCli(['run', '--quiet', 'hi'], {
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_MODEL: 'm',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^stageloop: .*cannot reach http:\/\/127\.0\.0\.1:9\/v1/),
    ]);
  });
});

describe('settings', () => {
  it.each([
    [{ AGENT_TEMPERATURE: 'abc' }, 'stageloop: AGENT_TEMPERATURE must be a number from 0 to 2, got "abc"'],
    [{ AGENT_TOOL_PROTOCOL: 'xml' }, 'stageloop: AGENT_TOOL_PROTOCOL must be "native" or "text", got "xml"'],
    [{ AGENT_TOOL_CHOICE: 'maybe' }, 'stageloop: AGENT_TOOL_CHOICE must be "send" or "omit", got "maybe"'],
  ])('a bad setting %j fails at once even with the offline model', async (env, message) => {
    const result = await runCli(['run', 'What is 2 + 2?'], env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(message);
  });

  it('good AGENT_* settings are accepted offline', async () => {
    const result = await runCli(['run', '-q', 'What is 2 + 2?'], {
      AGENT_TEMPERATURE: '0.5',
      AGENT_TOOL_PROTOCOL: 'text',
      AGENT_TOOL_CHOICE: 'omit',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/4/);
  });

  it('--base-url without --model names --model and OPENAI_MODEL', async () => {
    const result = await runCli(['run', '--base-url', 'http://127.0.0.1:9/v1', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      /^stageloop: --base-url http:\/\/127\.0\.0\.1:9\/v1 needs a model name: pass --model NAME \(or set OPENAI_MODEL\)/,
    );
  });

  it('run --help lists every environment variable the CLI and what it loads read', async () => {
    const help = (await runCli(['run', '--help'])).stdout;
    const sources = ['app/cli', 'src/model/config.ts', 'src/tracing/instrument.ts', 'otel.config.ts'];
    const read = new Set<string>();
    for (const source of sources) {
      const files = source.endsWith('.ts') ? [source] : (await readdir(source)).map((name) => `${source}/${name}`);
      for (const file of files) {
        const text = await readFile(file, 'utf8');
        for (const match of text.matchAll(
          /\b(?:env\.|env\[['"]|setting\(env, ['"]|\[['"])([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b/g,
        ))
          read.add(match[1]!);
      }
    }
    read.delete('NODE_OPTIONS'); // read only to tell whether otel.config was preloaded; not a setting
    expect(read.size).toBeGreaterThan(10);
    for (const name of read) expect(help, name).toMatch(new RegExp(`^  ${name} `, 'm'));
  });
});

describe('--json', () => {
  it('usage carries estimated and reasoningTokens', async () => {
    const result = await runCli(['run', '--json', 'What is 2 + 2?']);
    const output = JSON.parse(result.stdout) as { usage: Record<string, unknown>; warnings: unknown[] };
    expect(output.usage).toMatchObject({ estimated: true, reasoningTokens: 0 });
    expect(output.warnings).toEqual([]);
  });

  it('warnings of finalize stages appear in the JSON object', async () => {
    const failing: Stage = {
      name: 'report',
      execute: () => {
        throw new Error('disk full');
      },
    };
    const done: Stage = { name: 'done', execute: () => ({ type: 'break_loop', kind: 'completed', reason: 'done' }) };
    const result = await runPipeline(
      definePipeline({ name: 'warned', iteration: [done], finalize: [failing], maxIterations: 1 }),
      { task: 'x' },
    );
    expect(jsonOutput(result).warnings).toEqual([{ stage: 'report', message: expect.stringContaining('disk full') }]);
  });
});

describe('escape codes in what a model writes', () => {
  const loopback = useLoopbackServer();
  const hostileName = `${escape}]0;owned${'\u0007'}calc${escape}[2J`;
  const hostileAnswer = `${escape}[32mAll tests passed${escape}[0m\r\n${escape}]0;title${'\u0007'}done \u009b31m`;

  it('never reach the terminal in progress or answer; --json keeps them, escaped', async () => {
    const env = { OPENAI_BASE_URL: loopback.server.url, OPENAI_MODEL: 'test-model' };
    loopback.server.replyWithToolCalls([{ name: hostileName, arguments: `{"x":"${escape}[31m"}` }]);
    loopback.server.replyWith({ content: hostileAnswer });
    const human = await runCli(['run', 'go'], env);
    expect(human.code).toBe(0);
    // The hostile name is no tool: the model gets a repair turn, shown in the progress view with the name made harmless.
    expect(human.stderr).toContain('repair turn');
    expect(human.stdout + human.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(human.stdout).toBe('All tests passed\ndone 31m\n');

    loopback.server.replyWith({ content: hostileAnswer });
    const json = await runCli(['run', '--json', 'go'], env);
    expect(json.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect((JSON.parse(json.stdout) as { answer: string }).answer).toBe(hostileAnswer);
  });
});

describe('exiting', () => {
  it('the process ends once its output is written, even with a referenced timer pending', async () => {
    // A preload leaves a 60 s referenced timer, as an SDK's retry sleep would; the test's own timeout is 20 s.
    const child = spawn(
      process.execPath,
      ['--import', 'data:text/javascript,setTimeout(() => {}, 60000)', cliPath, 'run', '-q', 'What is 2 + 2?'],
      {
        env: cleanEnvironment(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/4/);
  });
});

describe('a clone that was never built', () => {
  it('the bin says to run the build, in one line', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'stageloop-unbuilt-'));
    try {
      await mkdir(join(directory, 'bin'));
      await copyFile(cliPath, join(directory, 'bin', 'stageloop.js'));
      await copyFile(new URL('../../package.json', import.meta.url), join(directory, 'package.json'));
      const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
        execFile(process.execPath, [join(directory, 'bin', 'stageloop.js'), '--help'], (error, _stdout, stderr) =>
          resolve({ code: error ? Number(error.code) : 0, stderr }),
        ),
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'stageloop: the compiled CLI is missing: run "npm run build" in the stageloop folder (npm ci runs it too)\n',
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
