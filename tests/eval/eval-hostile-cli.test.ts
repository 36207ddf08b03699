// Hostile input to `stageloop eval` gets one clear line and the right exit code, never a hang: a backtracking regex,
// a grader that never settles, Ctrl-C while grading, prototype names as builtins, a tampered baseline, a bad pattern.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendReply } from '../support/chat-server.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli, startCli } from '../support/run-cli.js';

const loopback = useLoopbackServer();
const folder = mkdtempSync(join(tmpdir(), 'stageloop-eval-hostile-'));
const offline = { STAGELOOP_HOME: folder };
const file = (name: string, text: string) => {
  writeFileSync(join(folder, name), text);
  return join(folder, name);
};

// A grader of a module dataset that says when it starts, then never settles.
const hangingModule = file(
  'hanging.mjs',
  `export const cases = [{ id: 'sum', task: 'What is 2 + 2?', expected: 4 }];
export const graders = [{ name: 'never-settles', grade: () => { process.stderr.write('grading started\\n'); return new Promise(() => {}); } }];
`,
);

interface Report {
  results: Array<{ pass: boolean; runs: Array<{ grades: Array<{ grader: string; pass: boolean; reason: string }> }> }>;
}

describe('stageloop eval on hostile input', { timeout: 120_000 }, () => {
  it('a regex that backtracks catastrophically fails its grade and the eval ends', async () => {
    loopback.server.handle(
      (request, response) =>
        sendReply(request, response, { content: `${'a'.repeat(40)}!`, usage: { input: 10, output: 5 } }),
      10,
    );
    const dataset = file(
      'redos.jsonl',
      `${JSON.stringify({ id: 'redos', task: 'Say a lot of a', graders: [{ type: 'regex', pattern: '^(a+)+$' }] })}\n`,
    );
    const result = await runCli(['eval', dataset, '--variant', 'v=react:--no-tools', '--json', '-q'], {
      ...offline,
      OPENAI_BASE_URL: loopback.server.url,
      OPENAI_MODEL: 'test-model',
    });
    const grade = (JSON.parse(result.stdout) as Report).results[0]!.runs[0]!.grades[0]!;
    expect(grade).toMatchObject({ grader: 'regex', pass: false });
    expect(grade.reason).toMatch(/^\/\^\(a\+\)\+\$\/ took over 2000 ms .* \(catastrophic backtracking\)/);
    expect(result.code).toBe(1);
  });

  it('a grader that never settles is a failed grade naming it, not a silent exit 13', async () => {
    const result = await runCli(['eval', hangingModule, '--offline', '--grader-timeout', '1', '--json', '-q'], offline);
    const grades = (JSON.parse(result.stdout) as Report).results[0]!.runs[0]!.grades;
    expect(grades.find((grade) => grade.grader === 'never-settles')).toMatchObject({
      pass: false,
      reason: 'grader "never-settles" did not finish within 1 s and was given up (a promise that never settles?)',
    });
    expect(result.code).toBe(1);
  });

  it('Ctrl-C while a grader hangs ends the eval (exit 130)', async () => {
    const started = startCli(['eval', hangingModule, '--offline'], offline);
    await started.waitForStderr('grading started');
    started.child.kill('SIGINT');
    const result = await started.done;
    expect(result.stderr).toMatch(/interrupted: finished runs are kept; 1 left: run them with stageloop eval --resume/);
    expect(result.code).toBe(130);
  });

  it('a prototype name is no built-in dataset: one line listing the built-ins (exit 2)', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const result = await runCli(['eval', `builtin:${name}`, '--offline'], offline);
      expect(result.stderr).toBe(`stageloop: no built-in dataset "builtin:${name}": choose builtin:arithmetic\n`);
      expect(result.code).toBe(2);
    }
  });

  it('a tampered --baseline is exit 2 naming the field', async () => {
    const cases: Array<[object, RegExp]> = [
      [{ results: [{ id: 'a', variant: 'v', pass: 'yes' }] }, /: results\.0\.pass: Invalid input: expected boolean/],
      [{ results: [], summary: 5 }, /: summary: Invalid input: expected array/],
      [{ results: [], summary: [{ variant: 'v', passRate: 2, meanScore: 1 }] }, /: summary\.0\.passRate: Too big/],
      [[], /: the file: Invalid input: expected object/],
    ];
    for (const [value, field] of cases) {
      const baseline = file('baseline.json', JSON.stringify(value));
      const result = await runCli(['eval', 'builtin:arithmetic', '--offline', '--baseline', baseline, '-q'], offline);
      expect(result.stderr).toMatch(field);
      expect(result.stderr).toMatch(
        /^stageloop: --baseline .*baseline\.json: .*: give the output of stageloop eval --json/,
      );
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.code).toBe(2);
    }
  });

  it('an invalid regex in a dataset names the file and the line, before any run (exit 2)', async () => {
    const dataset = file(
      'bad-regex.jsonl',
      `{"id":"fine","task":"What is 2 + 2?","expected":4}\n\n${JSON.stringify({ id: 'bad', task: 'x', graders: [{ type: 'regex', pattern: '(a' }] })}\n`,
    );
    const result = await runCli(['eval', dataset, '--offline'], offline);
    expect(result.stderr).toMatch(
      /^stageloop: .*bad-regex\.jsonl:3: graders\.0\.pattern: invalid regular expression \/\(a\/ \(Unterminated group\): fix the pattern/,
    );
    expect(result.stderr).not.toMatch(/eval eval-/);
    expect(result.code).toBe(2);
  });

  it('--resume refuses another dataset, naming both (exit 2)', async () => {
    const first = await runCli(['eval', 'builtin:arithmetic', '--offline', '--json', '-q'], offline);
    expect(first.code).toBe(0);
    const evalId = (JSON.parse(first.stdout) as { evalId: string }).evalId;
    const other = file('other.jsonl', '{"id":"multiply","task":"What is 3 * 3?","expected":9}\n');
    const result = await runCli(['eval', other, '--resume', evalId, '--offline'], offline);
    expect(result.stderr).toBe(
      `stageloop: --resume ${evalId}: that eval ran builtin:arithmetic, not ${other}: drop the dataset to continue it, or start a new eval on ${other}\n`,
    );
    expect(result.code).toBe(2);
  });
});
