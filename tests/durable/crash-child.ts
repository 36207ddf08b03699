// The process the crash test kills: starts (or resumes) one recorded run (ReAct or Plan-Execute-Replan) against the parent's loopback model,
// with a tool whose every execution appends a line to a side-effect log, and prints markers the parent aims at.
//
//   node --import tsx tests/durable/crash-child.ts '<ChildConfig as JSON>'
//
// stdout lines: "ready", "stage <zone> <iteration> <stage>", "tool <step>", "checkpoint <seq>", "appended <head>",
// "result <RunResult as JSON>". A store refusal (busy, finished, stale claim) goes to stderr; exit codes below.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import type { Deps } from '../../src/engine/stage.js';
import { OpenAIChatModel } from '../../src/model/openai-model.js';
import { openStore } from '../../src/store/location.js';
import type { RunStore } from '../../src/store/types.js';
import { isStageloopError } from '../../src/common/stageloop-error.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { crashPipeline, type CrashPipeline } from './crash-pipelines.js';

export interface ChildConfig {
  /** The store: a SQLite file, or a postgres:// URL (with ?schema=). */
  db: string;
  runId: string;
  action: 'start' | 'resume';
  serverUrl: string;
  /** The side-effect log: one line per tool execution. */
  sideLog: string;
  /** Written into each side-effect line, so the parent knows which process executed a call. */
  attempt: number;
  pipeline: CrashPipeline;
  maxIterations: number;
  toolDelayMs: number;
  leaseMs?: number;
  /** Wait for a line on stdin after "ready" (two resumers released at once). */
  waitForGo?: boolean;
  /** Extra bytes in the run's input options: a bigger state makes each checkpoint write take longer. */
  paddingBytes?: number;
  /** Stop this process (SIGSTOP to itself) inside this tool call, after its side effect: a stalled owner, exactly there. */
  pauseAtStep?: number;
}

/** Exit codes the parent reads. */
export const exitCodes = { done: 0, crashed: 1, refused: 3 } as const;

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
const mark = (line: string): void => void process.stdout.write(`${line}\n`);

const sideEffect = defineTool({
  name: 'calculator',
  description: 'Adds numbers written like "2 + 3"; step numbers the call.',
  parameters: z.object({ step: z.number().int(), expression: z.string() }),
  // Safe to run again (this test counts the re-runs): a call a kill cut off runs again on resume, not held in doubt.
  idempotent: true,
  async execute({ step, expression }) {
    appendFileSync(config.sideLog, `${config.attempt}\t${step}\t${JSON.stringify({ step, expression })}\n`);
    mark(`tool ${step}`);
    if (step === config.pauseAtStep) process.kill(process.pid, 'SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, config.toolDelayMs));
    return String(expression.split('+').reduce((sum, term) => sum + Number(term), 0));
  },
});

/** The real store, saying on stdout when a checkpoint write starts and when a write was acknowledged. */
function announcingStore(store: RunStore): RunStore {
  return {
    ...store,
    async append(claim, entries, options) {
      if (options?.checkpoint !== undefined) mark(`checkpoint ${options.checkpoint.seq}`);
      await store.append(claim, entries, options);
      mark(`appended ${entries.at(-1)?.seq ?? 'none'}`);
    },
  };
}

async function main(): Promise<number> {
  const store = announcingStore(openStore({ path: config.db }));
  const deps: Partial<Deps> = {
    model: new OpenAIChatModel({
      baseUrl: config.serverUrl,
      model: 'test-model',
      apiKey: 'sk-test',
      maxRetries: 0,
      timeoutMs: 10_000,
    }),
    tools: new ToolRegistry([sideEffect]),
    // The run id is the only id drawn outside the journal: fixed, so every process and the reference agree.
    ids: { newId: () => config.runId },
    onEvent: (event) => {
      if (event.type === 'stage_started') mark(`stage ${event.zone} ${event.iteration} ${event.stage}`);
    },
  };
  const pipeline = crashPipeline(config.pipeline, config.maxIterations);
  if (config.waitForGo === true) {
    mark('ready');
    await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));
  }
  const lease = config.leaseMs === undefined ? {} : { leaseMs: config.leaseMs };
  try {
    const result =
      config.action === 'start'
        ? await runPipeline(
            pipeline,
            { task: 'Add the numbers step by step.', options: { padding: 'x'.repeat(config.paddingBytes ?? 0) } },
            { store, deps, ...lease },
          )
        : await resumeRun(store, config.runId, { pipeline, deps, ...lease });
    const line = `result ${JSON.stringify(result, (key, value: unknown) => (key === 'cause' ? undefined : value))}\n`;
    // A pipe takes a long line in pieces: exit only once all of it is written.
    await new Promise((resolve) => process.stdout.write(line, resolve));
    return exitCodes.done;
  } catch (error) {
    if (!isStageloopError(error)) throw error;
    process.stderr.write(`refused ${error.name}: ${error.message}\n`);
    return exitCodes.refused;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `crash-child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(exitCodes.crashed);
  },
);
