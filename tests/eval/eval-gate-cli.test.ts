// The regression gate (--baseline), grading again with no model call (--replay), and Ctrl-C then --resume.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sendReply } from '../support/chat-server.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { runCli, startCli } from '../support/run-cli.js';
import { arithmeticCases, arithmeticJsonl, arithmeticReply, serveArithmetic } from './arithmetic-server.js';

const loopback = useLoopbackServer();
const folder = mkdtempSync(join(tmpdir(), 'stageloop-eval-gate-'));
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
    runs: Array<{ runId: string; grades: Array<{ grader: string; reason: string }> }>;
  }>;
  baseline?: { regressions: Array<{ id: string; variant: string; kind: string }>; failed: boolean };
}

describe('stageloop eval --baseline', { timeout: 120_000 }, () => {
  it('fails on a planted regression naming the cases, and passes without one', async () => {
    serveArithmetic(loopback.server);
    const baselineFile = join(folder, 'baseline.json');
    const first = await runCli(['eval', dataset, '--variant', 'v=react', '--json', '-q'], env());
    expect(first.code).toBe(0);
    writeFileSync(baselineFile, first.stdout);
    // The planted regression: the same variant name without its tool.
    const regressed = await runCli(
      ['eval', dataset, '--variant', 'v=react:--no-tools', '--baseline', baselineFile, '-q'],
      env(),
    );
    expect(regressed.stdout).toMatch(/baseline .*baseline\.json \(threshold 0\): REGRESSED/);
    expect(regressed.stdout).toMatch(/v: pass rate 100% → 50%, score 1\.00 → 0\.50/);
    expect(regressed.stdout).toMatch(/regressed: v multiply\n {2}regressed: v divide/);
    expect(regressed.code).toBe(1);
    const asJson = JSON.parse(
      (
        await runCli(
          ['eval', dataset, '--variant', 'v=react:--no-tools', '--baseline', baselineFile, '--json', '-q'],
          env(),
        )
      ).stdout,
    ) as JsonReport;
    expect(asJson.baseline?.regressions).toEqual([
      { id: 'multiply', variant: 'v', kind: 'regressed' },
      { id: 'divide', variant: 'v', kind: 'regressed' },
    ]);
    const same = await runCli(['eval', dataset, '--variant', 'v=react', '--baseline', baselineFile, '-q'], env());
    expect(same.stdout).toMatch(/\(threshold 0\): no regression/);
    expect(same.code).toBe(0);
    // A threshold lets a drop within it through, and fails one beyond it.
    expect(
      (
        await runCli(
          ['eval', dataset, '--variant', 'v=react:--no-tools', '--baseline', baselineFile, '--threshold', '0.6', '-q'],
          env(),
        )
      ).code,
    ).toBe(0);
    expect(
      (
        await runCli(
          ['eval', dataset, '--variant', 'v=react:--no-tools', '--baseline', baselineFile, '--threshold', '0.4', '-q'],
          env(),
        )
      ).code,
    ).toBe(1);
  });

  it('refuses a baseline that is not an eval result', async () => {
    const wrong = join(folder, 'wrong.json');
    writeFileSync(wrong, '{"runs": []}');
    const result = await runCli(['eval', dataset, '--baseline', wrong], env());
    expect(result.stderr).toMatch(
      /^stageloop: --baseline .*wrong\.json: results: Invalid input: expected array, received undefined: give the output of stageloop eval --json, unedited\n$/,
    );
    expect(result.code).toBe(2);
    expect(loopback.server.requests).toHaveLength(0);
  });
});

describe('stageloop eval --replay', { timeout: 120_000 }, () => {
  it('grades the recorded runs again with changed graders and makes no model call', async () => {
    serveArithmetic(loopback.server);
    const original = JSON.parse(
      (await runCli(['eval', dataset, '--variant', 'tools=react', '--json', '-q'], env())).stdout,
    ) as JsonReport;
    expect(original.results.every((entry) => entry.pass)).toBe(true);
    const requests = loopback.server.requests.length;
    // A grader change: multiply must now be done without a tool.
    const changed = join(folder, 'changed.jsonl');
    writeFileSync(
      changed,
      arithmeticCases
        .map((evalCase) =>
          JSON.stringify(
            evalCase.id === 'multiply' ? { ...evalCase, graders: [{ type: 'tool-not-called' }] } : evalCase,
          ),
        )
        .join('\n'),
    );
    // No model server is reachable any more: a model call would fail the runs.
    const replayed = await runCli(['eval', changed, '--replay', original.evalId, '--json'], {
      ...env(),
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    expect(replayed.stderr).toMatch(/graded 4 recorded runs again \(no model call\)/);
    const report = JSON.parse(replayed.stdout) as JsonReport;
    expect(report.evalId).toBe(original.evalId);
    expect(report.results.map((entry) => [entry.id, entry.pass])).toEqual([
      ['add-small', true],
      ['add-large', true],
      ['multiply', false],
      ['divide', true],
    ]);
    expect(report.results[2]!.runs[0]!.grades[0]!.reason).toBe('called calculator');
    expect(report.results.map((entry) => entry.runs[0]!.runId)).toEqual(
      original.results.map((entry) => entry.runs[0]!.runId),
    );
    expect(loopback.server.requests.length).toBe(requests);
    expect(replayed.code).toBe(1);
  });
});

describe('Ctrl-C and --resume', { timeout: 120_000 }, () => {
  it('keeps every finished case when interrupted, and runs only the rest on --resume', async () => {
    // Two answers, then the model hangs until the eval is interrupted.
    let answering = 2;
    loopback.server.handle((request, response) => {
      if (answering-- > 0)
        sendReply(request, response, { ...arithmeticReply(request), usage: { input: 50, output: 10 } });
    }, 10_000);
    const cli = startCli(
      ['eval', dataset, '--variant', 'bare=react:--no-tools', '--concurrency', '1', '--json'],
      env(),
    );
    await cli.waitForStderr('[2/4]');
    cli.child.kill('SIGINT');
    const stopped = await cli.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/stopping: finished runs are kept/);
    const resumeCommand = /2 left: run them with stageloop eval --resume (eval-[0-9a-f]+)/.exec(stopped.stderr);
    expect(resumeCommand).not.toBeNull();
    const partial = JSON.parse(stopped.stdout) as JsonReport;
    expect(partial.complete).toBe(false);
    expect(partial.results.map((entry) => entry.id)).toEqual(['add-small', 'add-large']);
    answering = 100;
    const before = loopback.server.requests.length;
    const resumed = await runCli(['eval', '--resume', resumeCommand![1]!, '--json'], env());
    const report = JSON.parse(resumed.stdout) as JsonReport;
    expect(resumed.stderr).toMatch(/4 runs \(2 finished before\)/);
    expect(report.complete).toBe(true);
    expect(report.evalId).toBe(partial.evalId);
    expect(report.results.map((entry) => [entry.id, entry.pass])).toEqual([
      ['add-small', true],
      ['add-large', true],
      ['multiply', false],
      ['divide', false],
    ]);
    expect(report.results.slice(0, 2).map((entry) => entry.runs[0]!.runId)).toEqual(
      partial.results.map((entry) => entry.runs[0]!.runId),
    );
    expect(loopback.server.requests.length - before).toBe(2);
    expect(resumed.code).toBe(1);
  });
});
