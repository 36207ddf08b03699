// The one door every run the server starts goes through (POST /v1/runs and the protocol endpoints alike), with one
// error policy: a server shutting down is `unavailable` and a store that cannot record the run is `store` (both 503),
// an assembly error keeps its own code, and anything else surfaces as `internal` (500) where the route answers it.
import { messageOf } from '../common/error-message.js';
import { isStageloopError, StageloopError } from '../common/stageloop-error.js';
import type { EventLog } from '../stream/event-log.js';
import { conversationOption, type ClientMessage } from '../engine/client-conversation.js';
import type { AgentInfo, PipelineInfo } from './pipeline-info.js';
import type { StartRunBody } from './request-schemas.js';
import type { RunAssembly, RunHost } from './run-host.js';
import { currentScope, withinScope } from '../engine/run-scope.js';
import { withTraceHeaders, type TraceHeaders } from '../tracing/trace-context.js';

declare module '../engine/run-scope.js' {
  interface RunScope {
    /** The W3C trace context a request arrived with (any door keeps it: keepingTraceHeaders); startRun reads it. */
    incomingTrace?: TraceHeaders;
  }
}

/** Runs `body` (a request's handling) with the trace context it came with, for startRun to make the run part of. */
export function keepingTraceHeaders<Result>(headers: TraceHeaders, body: () => Result): Result {
  return headers.traceparent === undefined ? body() : withinScope({ incomingTrace: headers }, body);
}

/** What starting a run needs from the server: its run host, its pipelines and the application's assembler. */
export interface StartRunServices {
  host: RunHost;
  pipelines: readonly PipelineInfo[];
  defaultPipeline: string;
  /** The config file's agents (absent: none); a request may name one (`agent`). */
  agents?: readonly AgentInfo[];
  /** Builds a run's pipeline and deps from a request (the application's job: src/server knows no stages). */
  assemble(body: StartRunBody & { pipeline: string }): Promise<RunAssembly>;
}

export interface StartedRun {
  runId: string;
  /** The run's events as they happen (kept a while after it ends, for late readers). */
  log: EventLog;
}

/** Checks the pipeline, assembles the run and starts it in the host; resolves once the run has its id. */
export async function startRun(
  services: StartRunServices,
  { conversation, ...request }: StartRunBody & { conversation?: readonly ClientMessage[] },
): Promise<StartedRun> {
  const agents = services.agents ?? [];
  const agent = request.agent === undefined ? undefined : agents.find((known) => known.name === request.agent);
  if (request.agent !== undefined && agent === undefined)
    throw new StageloopError(
      'usage',
      `agent: unknown agent "${request.agent}": ${agents.length > 0 ? `choose one of ${agents.map((known) => known.name).join(', ')}` : 'this server has no agents (define them in stageloop.config.json under "agents")'}`,
    );
  // An agent runs its own pipeline.
  const pipeline = agent?.pipeline ?? request.pipeline ?? services.defaultPipeline;
  const names = services.pipelines.map((known) => known.name);
  if (!names.includes(pipeline))
    throw new StageloopError('usage', `pipeline: unknown pipeline "${pipeline}": choose one of ${names.join(', ')}`);
  if (!services.host.accepting)
    throw new StageloopError('unavailable', 'the server is shutting down and takes no new runs');
  // An assembly error is thrown as it is: a StageloopError answers with its own code, anything else is a bug of ours.
  const assembly = await services.assemble({ ...request, pipeline });
  // A protocol client's earlier messages go in as messages (recorded in the input's options), never into the task.
  const options = conversation === undefined ? {} : conversationOption(conversation);
  const input = {
    task: request.task,
    ...(request.session !== undefined && { session: request.session, user: request.user ?? 'default' }),
    ...(Object.keys(options).length > 0 && { options }),
  };
  // The one place a caller's trace context is extracted: the run's root span becomes a child of the caller's span.
  const started = withTraceHeaders(currentScope()?.incomingTrace, () => services.host.start(assembly, input));
  const runId = await started.catch((error: unknown) => {
    // A run fails before its first event only where the store refused to record it (a real store says so itself).
    throw isStageloopError(error)
      ? error
      : new StageloopError('store', `the run could not be recorded: ${messageOf(error)}`, { cause: error });
  });
  return { runId, log: services.host.log(runId)! };
}
