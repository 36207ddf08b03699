// The metric instruments, made once per meter through @opentelemetry/api (no-op until an SDK registers a
// MeterProvider, like spans). Names and units: MetricNames in attributes.ts; docs/tracing.md lists the attributes.
import { metrics, type Counter, type Histogram, type Meter, type UpDownCounter } from '@opentelemetry/api';
import { packageVersion } from '../common/version.js';
import { MetricNames, tracerName } from './attributes.js';

export interface StageloopInstruments {
  tokenUsage: Histogram;
  cacheReadInputTokens: Counter;
  reasoningOutputTokens: Counter;
  operationDuration: Histogram;
  timeToFirstChunk: Histogram;
  timePerOutputChunk: Histogram;
  toolDuration: Histogram;
  agentDuration: Histogram;
  workflowDuration: Histogram;
  runs: Counter;
  iterations: Histogram;
  guardActions: Counter;
  approvalsWaiting: UpDownCounter;
}

/** Bucket bounds (seconds) of the GenAI duration histograms, as the conventions advise. */
const durationBuckets = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** Bucket bounds of the token histogram, as the conventions advise. */
const tokenBuckets = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

const made = new WeakMap<object, StageloopInstruments>();

/** The API's no-op provider: the global one until an SDK registers (the metrics API has no proxy provider). */
const noopMeterProvider = metrics.getMeterProvider();

/**
 * The instruments of `meter`, or of the global provider's `stageloop` meter; undefined while no SDK registered one
 * (then callers skip building attributes). Looked up per call: a meter taken before the SDK started stays a no-op.
 */
export function stageloopInstruments(meter?: Meter): StageloopInstruments | undefined {
  if (meter !== undefined) return instrumentsOf(meter, meter);
  const provider = metrics.getMeterProvider();
  if (provider === noopMeterProvider) return undefined;
  return made.get(provider) ?? instrumentsOf(provider.getMeter(tracerName, packageVersion()), provider);
}

function instrumentsOf(meter: Meter, key: object): StageloopInstruments {
  const known = made.get(key);
  if (known !== undefined) return known;
  const seconds = (name: string, description: string) =>
    meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: durationBuckets } });
  const counter = (name: string, unit: string, description: string) => meter.createCounter(name, { unit, description });
  const instruments: StageloopInstruments = {
    tokenUsage: meter.createHistogram(MetricNames.tokenUsage, {
      unit: '{token}',
      description: 'Number of input and output tokens used.',
      advice: { explicitBucketBoundaries: tokenBuckets },
    }),
    cacheReadInputTokens: counter(MetricNames.cacheReadInputTokens, '{token}', 'Input tokens served from a cache.'),
    reasoningOutputTokens: counter(MetricNames.reasoningOutputTokens, '{token}', 'Output tokens used for reasoning.'),
    operationDuration: seconds(MetricNames.operationDuration, 'GenAI operation duration.'),
    timeToFirstChunk: seconds(MetricNames.timeToFirstChunk, 'Time to receive the first chunk of a streamed reply.'),
    timePerOutputChunk: seconds(MetricNames.timePerOutputChunk, 'Time per output chunk after the first one.'),
    toolDuration: seconds(MetricNames.toolDuration, 'The duration of a single tool execution.'),
    agentDuration: seconds(MetricNames.agentDuration, 'The end-to-end duration of a single agent invocation.'),
    workflowDuration: seconds(MetricNames.workflowDuration, 'GenAI workflow duration (plan-execute-replan runs).'),
    runs: counter(MetricNames.runs, '{run}', 'Finished runs by status and stop reason.'),
    iterations: meter.createHistogram(MetricNames.iterations, {
      unit: '{iteration}',
      description: 'Loop iterations per finished run.',
      advice: { explicitBucketBoundaries: [1, 2, 3, 5, 8, 13, 21, 34, 55] },
    }),
    guardActions: counter(MetricNames.guardActions, '{action}', 'Guard decisions by guard and result.'),
    approvalsWaiting: meter.createUpDownCounter(MetricNames.approvalsWaiting, {
      unit: '{approval}',
      description: 'Tool calls waiting for a person to approve or reject them.',
    }),
  };
  made.set(key, instruments);
  return instruments;
}

/** Seconds between two `performance.now()` readings. */
export const secondsBetween = (fromMs: number, toMs: number) => Math.max(0, toMs - fromMs) / 1000;
