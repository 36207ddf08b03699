// `stageloop eval` as a user runs it, over a loopback model server: variants, --json, runs in the store, usage errors.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli } from '../support/run-cli.js';
import { arithmeticJsonl, serveArithmetic } from './arithmetic-server.js';

const loopback = useLoopbackServer();
const folder = mkdtempSync(join(tmpdir(), 'stageloop-eval-cli-'));
const dataset = join(folder, 'arithmetic.jsonl');
writeFileSync(dataset, arithmeticJsonl);
const env = () => ({ OPENAI_BASE_URL: loopback.server.url, OPENAI_MODEL: 'test-model', STAGELOOP_HOME: folder });

interface JsonReport {
  evalId: string;
  complete: boolean;
  results: Array<{
    id: string;
    variant: string;
    pass: boolean;
    runs: Array<{ runId: string; toolCalls: Array<{ name: string }> }>;
  }>;
  summary: Array<{ variant: string; passRate: number; cases: number; stopReasons: Record<string, number> }>;
}

describe('stageloop eval', { timeout: 120_000 }, () => {
  it('compares a variant with the calculator and one without: the pass rates differ as the tool says', async () => {
    serveArithmetic(loopback.server);
    const result = await runCli(
      [
        'eval',
        dataset,
        '--variant',
        'tools=react',
        '--variant',
        'bare=react:--no-tools --max-iterations 4',
        '--json',
        '--concurrency',
        '3',
      ],
      env(),
    );
    expect(result.stderr).toMatch(/eval eval-[0-9a-f]+: 4 cases × 2 variants = 8 runs/);
    expect(result.stderr).toMatch(/\[8\/8\] /);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.results.map((entry) => `${entry.variant}:${entry.id}:${entry.pass}`)).toEqual([
      'tools:add-small:true',
      'bare:add-small:true',
      'tools:add-large:true',
      'bare:add-large:true',
      'tools:multiply:true',
      'bare:multiply:false',
      'tools:divide:true',
      'bare:divide:false',
    ]);
    expect(report.summary.map((entry) => [entry.variant, entry.passRate])).toEqual([
      ['tools', 1],
      ['bare', 0.5],
    ]);
    expect(report.results[0]!.runs[0]!.toolCalls.map((call) => call.name)).toEqual(['calculator']);
    expect(report.results[1]!.runs[0]!.toolCalls).toEqual([]);
    // A request of the bare variant offers no tools.
    expect(loopback.server.requests.filter((request) => request.body.tools === undefined).length).toBe(4);
    expect(result.code).toBe(1);
    // Every run is in the default store: listed, shown and replayed like any other.
    const runs = await runCli(['runs', '--json', '--limit', '50'], env());
    const listed = (JSON.parse(runs.stdout) as Array<{ runId: string }>).map((run) => run.runId);
    for (const entry of report.results) expect(listed).toContain(entry.runs[0]!.runId);
    const replayed = await runCli(['replay', report.results[4]!.runs[0]!.runId], env());
    expect(replayed.stdout).toMatch(/^identical: react/);
    expect(replayed.code).toBe(0);
  });

  it('records each run with its variant as a recipe: instructions and no tools come back on replay', async () => {
    serveArithmetic(loopback.server);
    const result = await runCli(
      ['eval', dataset, '--variant', `brief=react:--no-tools --instructions "Answer in one line."`, '--json', '-q'],
      env(),
    );
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(loopback.server.requests[0]!.body.messages[0]!.content).toMatch(/^Answer in one line\./);
    expect(loopback.server.requests.every((request) => request.body.tools === undefined)).toBe(true);
    const replayed = await runCli(['replay', report.results[2]!.runs[0]!.runId], env());
    expect(replayed.stdout).toMatch(/^identical: react/);
  });

  it('prints a table per variant and the cases where variants disagree; exits 0 when every case passes', async () => {
    serveArithmetic(loopback.server);
    const mixed = await runCli(
      ['eval', dataset, '--variant', 'tools=react', '--variant', 'bare=react:--no-tools', '--quiet'],
      env(),
    );
    expect(mixed.stdout).toMatch(/^VARIANT +PASSED +RATE +SCORE +TOKENS +COST +P50 +P95 +STOP REASONS$/m);
    expect(mixed.stdout).toMatch(/^tools +4\/4 +100% +1\.00 /m);
    expect(mixed.stdout).toMatch(/^bare +2\/4 +50% +0\.50 .*completed 4$/m);
    expect(mixed.stdout).toMatch(
      /cases where the variants disagree:\nCASE +tools +bare\nmultiply +pass +FAIL\ndivide +pass +FAIL/,
    );
    expect(mixed.stdout).toMatch(/bare multiply: the answer has no 391/);
    expect(mixed.stderr).toBe('');
    const passing = await runCli(['eval', dataset, '--variant', 'tools=react', '-q'], env());
    expect(passing.stdout).toMatch(/every case passed/);
    expect(passing.code).toBe(0);
  });

  it('takes variants from the config file, and the react pipeline when none is given', async () => {
    serveArithmetic(loopback.server);
    const config = join(folder, 'eval-config.json');
    writeFileSync(
      config,
      JSON.stringify({
        evalVariants: {
          careful: { pipeline: 'react', guards: { maxIterations: 3 } },
          bare: { pipeline: 'react', tools: [] },
        },
      }),
    );
    const configured = await runCli(['eval', dataset, '--config', config, '--json', '-q'], env());
    expect(
      (JSON.parse(configured.stdout) as JsonReport).summary.map((entry) => [entry.variant, entry.passRate]),
    ).toEqual([
      ['careful', 1],
      ['bare', 0.5],
    ]);
    const picked = await runCli(['eval', dataset, '--config', config, '--variant', 'bare', '--json', '-q'], env());
    expect((JSON.parse(picked.stdout) as JsonReport).summary.map((entry) => entry.variant)).toEqual(['bare']);
    const plain = await runCli(['eval', dataset, '--json', '-q'], env());
    expect((JSON.parse(plain.stdout) as JsonReport).summary.map((entry) => [entry.variant, entry.passRate])).toEqual([
      ['default', 1],
    ]);
  });

  it('asks the judge model of --judge-model for judge graders', async () => {
    serveArithmetic(loopback.server);
    const judged = join(folder, 'judged.jsonl');
    writeFileSync(
      judged,
      '{"id":"kind","task":"What is 2 + 3?","graders":[{"type":"judge","rubric":"Is the answer correct and polite?"}]}\n',
    );
    const result = await runCli(
      ['eval', judged, '--variant', 'v=react', '--judge-model', 'judge-model', '--json', '-q'],
      env(),
    );
    const report = JSON.parse(result.stdout) as {
      results: Array<{
        pass: boolean;
        runs: Array<{ grades: Array<{ grader: string; score: number; reason: string }> }>;
      }>;
    };
    expect(report.results[0]!.runs[0]!.grades).toEqual([
      { grader: 'judge', score: 0.9, reason: 'judge: judged 2 messages', pass: true },
    ]);
    const judgeRequest = loopback.server.requests.find((request) => request.body.model === 'judge-model');
    expect(JSON.stringify(judgeRequest?.body.messages)).toContain('Is the answer correct and polite?');
    expect(result.code).toBe(0);
    const ledgers = readdirSync(join(folder, 'evals')).length;
    const offline = await runCli(['eval', judged, '--offline'], env());
    // A mistake found before any run leaves no eval behind.
    expect(readdirSync(join(folder, 'evals'))).toHaveLength(ledgers);
    expect(offline.stderr).toMatch(
      /case "kind": it has a judge grader but no judge model is set: pass --judge-model NAME/,
    );
    expect(offline.code).toBe(2);
  });

  it('runs the built-in dataset offline on both pipelines, every case passing', async () => {
    const result = await runCli(
      ['eval', 'builtin:arithmetic', '--variant', 'react=react', '--variant', 'per=plan-execute-replan', '--json'],
      { STAGELOOP_HOME: folder },
    );
    expect(result.stderr).toMatch(/^using the offline model stageloop-offline/);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report.summary.map((entry) => [entry.variant, entry.cases, entry.passRate])).toEqual([
      ['react', 8, 1],
      ['per', 8, 1],
    ]);
    expect(result.code).toBe(0);
  });

  it('refuses mistakes with one line and exit 2, before any model call', async () => {
    const bad = join(folder, 'bad.jsonl');
    writeFileSync(bad, '{"id":"a","task":"What is 1 + 1?"}\n{"id":"b","task":"x","graders":[{"type":"nope"}]}\n');
    const cases: Array<[string[], RegExp]> = [
      [['eval'], /^stageloop eval needs a dataset: stageloop eval builtin:arithmetic/],
      [['eval', bad], /^stageloop: .*bad\.jsonl:2: graders\.0\.type: unknown grader type: use one of /],
      [['eval', join(folder, 'none.jsonl')], /none\.jsonl: no such dataset file/],
      [
        ['eval', dataset, '--variant', 'x=nope'],
        /^stageloop: --variant x: unknown pipeline "nope": choose one of react, plan-execute-replan/,
      ],
      [
        ['eval', dataset, '--variant', 'x=react:--bogus'],
        /^stageloop: --bogus is not an option of this command: run "(?:stageloop|\.\/bin\/stageloop\.js) eval --help" for the options/,
      ],
      [
        ['eval', dataset, '--variant', 'x=react:--tools nothing'],
        /^stageloop: variant x: no tool named nothing: the tools are calculator/,
      ],
      [['eval', dataset, '--variant', 'a=react', '--variant', 'a=react'], /variant "a" is given twice/],
      [
        ['eval', dataset, '--variant', 'missing'],
        /--variant missing: no variant "missing" in the config file's "evalVariants"/,
      ],
      [['eval', dataset, '--concurrency', '0'], /--concurrency must be a whole number >= 1, got "0"/],
      [['eval', dataset, '--threshold', '0.1'], /--threshold needs --baseline FILE/],
      [['eval', '--resume', 'eval-0000000000'], /no eval eval-0000000000 in /],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, env());
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.code, args.join(' ')).toBe(2);
    }
    expect(loopback.server.requests).toHaveLength(0);
  });
});
