// Every span attribute name stageloop writes, in one place. Our own constants: the GenAI ones in
// @opentelemetry/semantic-conventions exist only in its deprecated incubating entry.

/** OpenTelemetry GenAI semantic conventions (status: development). */
export const GenAiAttributes = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  requestTemperature: 'gen_ai.request.temperature',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestStream: 'gen_ai.request.stream',
  responseModel: 'gen_ai.response.model',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageReasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolCallId: 'gen_ai.tool.call.id',
  /** Opt-in content: JSON strings, redacted. */
  systemInstructions: 'gen_ai.system_instructions',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
} as const;

/** Values of gen_ai.operation.name. */
export const GenAiOperations = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const;

/** General OpenTelemetry attributes (stable). */
export const GeneralAttributes = {
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
} as const;

/** stageloop's own attributes. */
export const StageloopAttributes = {
  runId: 'stageloop.run.id',
  status: 'stageloop.status',
  stopReasonKind: 'stageloop.stop_reason.kind',
  stopReasonStage: 'stageloop.stop_reason.stage',
  /** Prefix of the limits in force on the root span: stageloop.limit.max_tokens, stageloop.limit.timeout_seconds... (-1: off). */
  limitPrefix: 'stageloop.limit.',
  stopReasonMessage: 'stageloop.stop_reason.message',
  iterations: 'stageloop.iterations',
  stageName: 'stageloop.stage.name',
  zone: 'stageloop.zone',
  iteration: 'stageloop.iteration',
  /** `break_loop` or `abort_run` when the stage steered. */
  signal: 'stageloop.signal',
  signalReason: 'stageloop.signal.reason',
  signalKind: 'stageloop.signal.kind',
  purpose: 'stageloop.purpose',
} as const;

/** Span names: part of the contract (docs/tracing.md). */
export const SpanNames = {
  run: (pipeline: string) => `invoke_agent ${pipeline}`,
  iteration: (iteration: number) => `iteration ${iteration}`,
  stage: (stage: string) => `stage ${stage}`,
  chat: (model: string) => `chat ${model}`,
  tool: (tool: string) => `execute_tool ${tool}`,
} as const;

/** The instrumentation scope name passed to trace.getTracer(). */
export const tracerName = 'stageloop';
