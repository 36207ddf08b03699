// `--trace otlp|console` for the CLI: starts the SDK from otel.config.ts and instruments the run's deps.
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { Deps } from '../../src/engine/stage.js';
import type { GradedRun } from '../../src/tracing/evaluation-records.js';
import type { Environment } from '../../src/model/config.js';
import type { TraceMode } from './args.js';

export interface CliTracing {
  instrument(deps: Partial<Deps>): Partial<Deps>;
  /** A graded run's verdicts as `gen_ai.evaluation.result` events, in that run's trace when this process traced it. */
  recordEvaluation(run: GradedRun): void;
  /** Flushes spans (otlp) or prints the waterfall (console); bounded in time, never throws. */
  finish(): Promise<void>;
}

export async function startCliTracing(
  mode: TraceMode,
  options: { traceContentFlag: boolean; env: Environment; stderr: NodeJS.WritableStream },
): Promise<CliTracing> {
  // Loaded only when asked for: the SDK and even the OTel API cost start-up time that untraced runs should not pay.
  const [{ startTracing }, { traceContentFromEnv }] = await Promise.all([
    import('../../otel.config.js'),
    import('../../src/tracing/instrument.js'),
  ]);
  const recordContent = options.traceContentFlag || traceContentFromEnv(options.env);
  const session = startTracing(mode, { recordContent, stderr: options.stderr });
  return {
    instrument: (deps) => session.instrument(deps),
    recordEvaluation: (run) => session.recordEvaluation(run),
    finish: () => session.finish(),
  };
}

/** A --trace flag's value: otlp or console, else a usage error naming both. */
export function traceModeOf(value: string): TraceMode {
  if (value !== 'otlp' && value !== 'console')
    throw new StageloopError('usage', `--trace must be "otlp" or "console", got "${value}"`);
  return value;
}
