// Every span, event and metric name stageloop writes, in one place. Our own constants: the GenAI ones in
// @opentelemetry/semantic-conventions exist only in its deprecated incubating entry.

/**
 * The GenAI conventions these names follow (status "Development"): open-telemetry/semantic-conventions-genai, main
 * of December 2026 (model/gen-ai/spans.yaml at 002c8a6, metrics.yaml at 004902b, token-metrics.yaml at 066d4a7,
 * docs/gen-ai/non-normative/guardrail-systems.md for the guardrail result event).
 */
export const genAiConventionsVersion = 'semantic-conventions-genai main 2026-12 (spans 002c8a6, metrics 004902b)';

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
  tokenType: 'gen_ai.token.type',
  responseId: 'gen_ai.response.id',
  workflowName: 'gen_ai.workflow.name',
} as const;

/** The `gen_ai.guardrail.result` event: what a guard decided (in-process guardrails report events, not spans). */
export const GuardrailAttributes = {
  event: 'gen_ai.guardrail.result',
  componentName: 'gen_ai.guardrail.component.name',
  resultType: 'gen_ai.guardrail.result.type',
  resultValue: 'gen_ai.guardrail.result.value',
  resultReason: 'gen_ai.guardrail.result.reason',
  source: 'gen_ai.guardrail.source',
  policyId: 'gen_ai.guardrail.policy.id',
  riskCategory: 'gen_ai.guardrail.risk.category',
  riskScore: 'gen_ai.guardrail.risk.score',
} as const;

/** The `gen_ai.evaluation.result` event: one grader's verdict on a run's answer. */
export const EvaluationAttributes = {
  event: 'gen_ai.evaluation.result',
  name: 'gen_ai.evaluation.name',
  scoreValue: 'gen_ai.evaluation.score.value',
  scoreLabel: 'gen_ai.evaluation.score.label',
  explanation: 'gen_ai.evaluation.explanation',
  /** The graded response: our run id (a run's answer has no provider response id of its own). */
  responseId: 'gen_ai.response.id',
} as const;

/** Metric names with their units: the GenAI client metrics, then stageloop's own run-level ones. */
export const MetricNames = {
  tokenUsage: 'gen_ai.client.token.usage',
  cacheReadInputTokens: 'gen_ai.client.inference.usage.cache_read.input_tokens',
  reasoningOutputTokens: 'gen_ai.client.inference.usage.reasoning.output_tokens',
  operationDuration: 'gen_ai.client.operation.duration',
  timeToFirstChunk: 'gen_ai.client.operation.time_to_first_chunk',
  timePerOutputChunk: 'gen_ai.client.operation.time_per_output_chunk',
  toolDuration: 'gen_ai.execute_tool.duration',
  agentDuration: 'gen_ai.invoke_agent.duration',
  workflowDuration: 'gen_ai.workflow.duration',
  runs: 'stageloop.runs',
  iterations: 'stageloop.run.iterations',
  guardActions: 'stageloop.guard.actions',
  approvalsWaiting: 'stageloop.approvals.waiting',
} as const;

/** Values of gen_ai.operation.name. */
export const GenAiOperations = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
  invokeWorkflow: 'invoke_workflow',
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
  /** The eval variant whose run an `evaluate {case}` span grades. */
  evalVariant: 'stageloop.eval.variant',
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
  /** Number of agent runs under this run (itself not counted); the tree is in the run's result (`agents`). */
  agentsCount: 'stageloop.agents.count',
  guard: 'stageloop.guard',
  guardResult: 'stageloop.guard.result',
  stepId: 'stageloop.plan.step.id',
  stepDependsOn: 'stageloop.plan.step.depends_on',
  stepOutcome: 'stageloop.plan.step.outcome',
} as const;

/** Span names: part of the contract (docs/tracing.md). */
export const SpanNames = {
  run: (pipeline: string) => `invoke_agent ${pipeline}`,
  iteration: (iteration: number) => `iteration ${iteration}`,
  stage: (stage: string) => `stage ${stage}`,
  chat: (model: string) => `chat ${model}`,
  tool: (tool: string) => `execute_tool ${tool}`,
  workflow: (pipeline: string) => `invoke_workflow ${pipeline}`,
  step: (step: string) => `step ${step}`,
} as const;

/** The instrumentation scope name passed to trace.getTracer(). */
export const tracerName = 'stageloop';
