// The engine's public API. Stages live in 'stageloop/stages', pipelines in 'stageloop/pipelines', test doubles in 'stageloop/testing'.
export { breakLoop, abortRun, isSignal, type Signal, type SignalType } from './engine/signal.js';
export type { JsonValue, JsonObject, JsonPrimitive } from './common/json.js';
export {
  createRunState,
  addUsage,
  emptyRunUsage,
  type RunState,
  type RunStateCore,
  type RunInput,
  type StageSlots,
  type Usage,
  type Turn,
  type TurnDirectives,
  type RunOutcome,
} from './engine/state.js';
export type { Stage, StageReturn, StageContext, Deps, Zone, Clock, IdGenerator, RunEvent, RunTracer, StageInfo, RunOutcomeSummary } from './engine/stage.js';
export {
  definePipeline,
  insertBefore,
  insertAfter,
  replaceStage,
  removeStage,
  stageNames,
  isPipeline,
  PipelineDefinitionError,
  type Pipeline,
  type PipelineDefinition,
} from './engine/pipeline.js';
export { type RunResult, type RunOptions, type RunStatus, type StopReason, type StageStats, type RunError, type RunWarning } from './engine/runner.js';
export { outputOf } from './engine/run-output.js';
export {
  ModelError,
  emptyUsage,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatMessage,
  type ChatUsage,
  type ChatStreamEvent,
  type ToolCall,
  type ToolDefinition,
  type ToolChoice,
  type ResponseFormat,
  type FinishReason,
  type ModelErrorKind,
} from './model/types.js';
export type { ToolBox, ToolResult, ToolError, ToolErrorKind, ToolOutcome } from './tools/types.js';

// --- Models: the OpenAI-compatible adapter and its configuration (issue 3) ---
export { OpenAIChatModel, defaultOpenAIBaseUrl, type OpenAIChatModelOptions } from './model/openai-model.js';
export { ConfigError, modelConfigFromEnv, openAIModelFromEnv, isRealModelConfigured, defaultOpenAIModel, type EnvironmentVariables } from './model/config.js';

// --- The offline model: deterministic rules, no key or network needed (issue 3) ---
export { OfflineModel, offlineNotice } from './model/offline-model.js';

// --- Tools: defineTool, the registry (the ToolBox port), calculator and web search (issue 4) ---
export { defineTool, isStrictCompatible, ToolDefinitionError, TOOL_NAME_PATTERN, type Tool, type ToolSpec, type ToolContext, type ToolOutput, type ToolParameters } from './tools/define-tool.js';
export { ToolRegistry, TOOL_DEFAULTS, type ToolRegistryOptions, type WrapToolCall } from './tools/registry.js';
export { ToolFailure, type ToolFailureKind } from './tools/tool-failure.js';
export { EMPTY_RESULT_CONTENT } from './tools/executor.js';
export { calculatorTool, type CalculatorTool, type CalculatorOptions } from './tools/calculator.js';
export { webSearchTool, type WebSearchOptions } from './tools/web-search.js';

// --- Tracing: OpenTelemetry spans through @opentelemetry/api only; the SDK is set up by otel.config.ts (issue 6) ---
export { otelRunTracer, type OtelRunTracerOptions } from './tracing/otel-tracer.js';
export { traceModel, type TraceModelOptions } from './tracing/traced-model.js';
export { toolSpanWrapper, type ToolSpanOptions } from './tracing/tool-spans.js';
export { instrumentDeps, traceContentFromEnv, type TracingOptions } from './tracing/instrument.js';
export { ConsoleWaterfallExporter, renderWaterfall, type WaterfallSpan, type WaterfallOptions, type WaterfallExportResult } from './tracing/console-waterfall.js';
export { redactSecrets, redactValue, redactedJson } from './common/redact.js';
export { GenAiAttributes, GenAiOperations, GeneralAttributes, StageloopAttributes, SpanNames, tracerName } from './tracing/attributes.js';

// --- durable runs (issue 13): the RunStore port, its memory and SQLite adapters, where the CLI keeps its store ---
export {
  StoreError,
  RunNotFoundError,
  RunExistsError,
  RunBusyError,
  RunFinishedError,
  StaleClaimError,
  SequenceError,
  type RunStore,
  type RunHeader,
  type RunSummary,
  type RunOutcomeRecord,
  type StoredRunStatus,
  type Owner,
  type Claim,
  type ClaimOptions,
  type AppendOptions,
  type JournalEntry,
  type JournalKind,
  type Checkpoint,
  type RunPosition,
} from './store/types.js';
export { memoryStore, type MemoryStoreOptions } from './store/memory-store.js';
export { sqliteStore, type SqliteStoreOptions } from './store/sqlite-store.js';
export type { StoreClock } from './store/run-store.js';
export { openStore, storePath, makeOwner, storeFileName, type StoreLocation } from './store/location.js';

// --- Durable runs: recorded with a store, resumed after a crash or cancel, replayed offline (issue 13) ---
export { runPipeline, resumeRun, PipelineMismatchError, type DurableRunOptions, type RecordOptions, type ResumeOptions } from './durable/durable-run.js';
export { replayRun, type ReplayOptions, type ReplayReport } from './durable/replay.js';
export { listRuns, loadRun, type LoadedRun } from './durable/inspect.js';
export type { Divergence, DivergenceKind } from './durable/divergence.js';
export type { RunSeam, RunStart, RunCursor } from './engine/run-seam.js';

// --- MCP tools and fallback models (issue 17) ---
export {
  mcpTools,
  loadMcpTools,
  mcpToolOrigin,
  McpServerPool,
  processMcpPool,
  closeMcpServers,
  McpServerError,
  prefixedToolName,
  type McpToolsOptions,
  type McpToolInfo,
  type McpServer,
  type McpServerSpec,
  type McpStdioServer,
  type McpHttpServer,
  type McpToolOrigin,
} from './tools/mcp/index.js';
export {
  fallbackModel,
  DEFAULT_FALLBACK_KINDS,
  type FallbackModelOptions,
  type FallbackChatModel,
  type FallbackChatResponse,
  type FallbackEvent,
  type AnsweredBy,
} from './model/fallback-model.js';

// --- workers (issue 19) ---
export { redisStore, type RedisStoreOptions } from './store/redis-store.js';
export { checkRedisReachable, isRedisUrl, type RedisConnectOptions } from './store/redis-connection.js';
export { openStoreAt } from './store/redis-location.js';
export { startWorker, type WorkerOptions, type RunWorker } from './workers/worker.js';
export { enqueueRun, parseRunJob, defaultQueueName, RunJobError, type RunJobData, type EnqueueInput, type EnqueueOptions } from './workers/run-job.js';
export { processRun, RunTakenOverError, type PreparedRun, type PrepareRun, type RunJobResult, type ProcessRunOptions } from './workers/process-run.js';

// --- sessions and memory (issue 16) ---
export {
  SessionError,
  SessionNameError,
  SessionNotFoundError,
  checkName,
  checkFact,
  sessionScope,
  defaultUser,
  type SessionStore,
  type SessionScope,
  type SessionHistory,
  type TurnRecord,
  type NewTurn,
  type Fact,
} from './sessions/types.js';
export { memorySessions } from './sessions/memory-sessions.js';
export { sqliteSessions, type SqliteSessionsOptions } from './sessions/sqlite-sessions.js';
export { createSessionStore, type SessionTables, type TurnRow, type FactRow } from './sessions/session-store.js';
export { rememberTool, rememberedFacts, rememberToolName, type RememberResult } from './tools/remember.js';

// serve (issue 18)
export { serverApp, type ServerAppOptions, type PipelineInfo, type DecisionsAdapter } from './server/app.js';
export { RunHost, type RunAssembly, type RunStarter } from './server/run-host.js';
export { RunEventLog, type SequencedEvent } from './server/event-log.js';
export { listen, checkBind, isLoopback, ServeConfigError, type ListeningServer } from './server/listen.js';
export { standaloneRunPage } from './server/console/pages.js';

// --- approvals (issue 15): pause for a person's decision, resume with it; the approval stage is in stageloop/stages ---
export { interruptRun, type PendingDecision } from './engine/signal.js';
export {
  DecisionError,
  parseDecision,
  type ApprovalRequest,
  type Decision,
  type LimitRequest,
  type LimitDecision,
  type LimitKind,
} from './durable/decisions.js';
export type { NeedsApproval } from './tools/define-tool.js';

// --- streaming (issue 14) ---
export type { RunEvents, RunEventType, RunEventOf, EmitData } from './engine/stage.js';
export { streamRun, type RunStream } from './stream/stream-run.js';
export { toServerSentEvents, serverSentEventsHeaders, type ServerSentEventsOptions } from './stream/server-sent-events.js';

// --- eval (issue 30): datasets, graders (also for your own vitest tests), evaluate(), baseline comparison ---
export { evaluate, newEvalId, type EvalVariant, type EvaluateOptions, type EvalProgress } from './eval/evaluate.js';
export { loadDataset, parseJsonl, checkCases, type Dataset } from './eval/dataset.js';
export * as graders from './eval/graders/index.js';
export type { EvalCase, Grade, Grader, GradeSubject, GraderSpec, GradeRecord } from './eval/graders/index.js';
export type { CaseResult, CaseRun, EvalResult, VariantSummary, Disagreement } from './eval/types.js';
export { agentTool, AGENT_DEFAULTS, type AgentToolOptions } from './agents/agent-tool.js';
