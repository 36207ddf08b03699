/** @module stageloop */
// The main entry: the engine, its ports and the everyday adapters, none of which needs an optional package.
// Stages live in 'stageloop/stages', pipelines in 'stageloop/pipelines', test doubles in 'stageloop/testing'; recorded
// runs on SQLite, resume and replay in 'stageloop/durable'; the HTTP server in 'stageloop/server'; queued runs on Redis
// in 'stageloop/workers'; MCP tools in 'stageloop/mcp'; evaluation in 'stageloop/eval'; OpenTelemetry spans in
// 'stageloop/tracing'.
export { breakLoop, abortRun, isSignal, type Signal, type SignalType } from './engine/signal.js';
export type { JsonValue, JsonObject, JsonPrimitive } from './common/json.js';
export { StageloopError, isStageloopError, type ErrorCode } from './common/stageloop-error.js';
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
export type {
  Stage,
  StageReturn,
  StageContext,
  Deps,
  Zone,
  Clock,
  IdGenerator,
  RunEvent,
  RunTracer,
  StageInfo,
  RunOutcomeSummary,
} from './engine/stage.js';
export {
  definePipeline,
  insertBefore,
  insertAfter,
  replaceStage,
  removeStage,
  stageNames,
  isPipeline,
  type Pipeline,
  type PipelineDefinition,
} from './engine/pipeline.js';
export {
  type RunResult,
  type RunOptions,
  type RunStatus,
  type StopReason,
  type StageStats,
  type RunError,
  type RunWarning,
} from './engine/runner.js';
export { outputOf } from './engine/run-output.js';
export {
  ModelError,
  emptyUsage,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatMessage,
  type HistoryPart,
  type ChatUsage,
  type ChatStreamEvent,
  type ToolCall,
  type ToolDefinition,
  type ToolChoice,
  type ResponseFormat,
  type FinishReason,
  type ModelErrorKind,
} from './model/types.js';
export type {
  AgentAnswer,
  AgentStop,
  ToolBox,
  ToolResult,
  ToolError,
  ToolErrorKind,
  ToolOutcome,
} from './engine/tool-port.js';

// Models: the OpenAI-compatible adapter, its configuration, and the offline model (deterministic rules, no key or network).
export { OpenAIChatModel, defaultOpenAIBaseUrl, type OpenAIChatModelOptions } from './model/openai-model.js';
export {
  modelConfigFromEnv,
  openAIModelFromEnv,
  isRealModelConfigured,
  defaultOpenAIModel,
  type EnvironmentVariables,
} from './model/config.js';
export { OfflineModel, offlineNotice } from './model/offline-model.js';

// Tools: defineTool, the registry (the ToolBox port), calculator and web search.
export {
  defineTool,
  TOOL_NAME_PATTERN,
  type Tool,
  type ToolSpec,
  type ToolContext,
  type ToolOutput,
  type ToolParameters,
} from './tools/define-tool.js';
export { isStrictCompatible } from './model/structured-output.js';
export { ToolRegistry, TOOL_DEFAULTS, type ToolRegistryOptions, type WrapToolCall } from './tools/registry.js';
export { ToolFailure, type ToolFailureKind } from './tools/tool-failure.js';
export { EMPTY_RESULT_CONTENT } from './tools/executor.js';
export { calculatorTool, type CalculatorTool, type CalculatorOptions } from './tools/calculator.js';
export { webSearchTool, type WebSearchOptions } from './tools/web-search.js';

// Recording runs: the RunStore port and the in-memory adapter; runPipeline records when given a store. What a store
// adapter implements (claims, owners, entries, checkpoints, its errors) is in 'stageloop/durable'.
export type { RunStore, RunSummary } from './store/types.js';
export { memoryStore, type MemoryStoreOptions } from './store/memory-store.js';
export { runPipeline, type DurableRunOptions, type RecordOptions } from './durable/durable-run.js';

// Fallback models: move to the next model when one fails.
export {
  fallbackModel,
  DEFAULT_FALLBACK_KINDS,
  type FallbackModelOptions,
  type FallbackChatModel,
  type FallbackChatResponse,
  type FallbackEvent,
  type AnsweredBy,
} from './model/fallback-model.js';

// Sessions and memory: the SessionStore port and its in-memory adapter (SQLite ones, and what a session store
// implements, are in 'stageloop/durable').
export { checkName, checkFact, defaultUser, type SessionStore, type Fact } from './sessions/types.js';
export { memorySessions } from './sessions/memory-sessions.js';
export { rememberTool, rememberToolName, type FactTarget, type RememberResult } from './tools/remember.js';

// Approvals: pause for a person's decision, resume with it; the approval stage is in 'stageloop/stages'.
export { interruptRun, type PendingDecision } from './engine/signal.js';
export {
  parseDecision,
  type ApprovalRequest,
  type Decision,
  type LimitRequest,
  type LimitDecision,
  type LimitKind,
} from './durable/decisions.js';
export type { NeedsApproval } from './tools/define-tool.js';

// Streaming: typed run events, a run as a stream, Server-Sent Events for any HTTP server.
export type { RunEvents, RunEventType, RunEventOf, EmitData } from './engine/stage.js';
export { streamRun, type RunStream } from './stream/stream-run.js';
export type { StreamPart } from './stream/stream-parts.js';
export {
  toServerSentEvents,
  serverSentEventsHeaders,
  serverSentEvent,
  eventStreamBody,
  type ServerSentEventsOptions,
} from './stream/server-sent-events.js';
export { EventLog } from './stream/event-log.js';

// Agents as tools and handoffs between agents.
export { agentTool, AGENT_DEFAULTS, type AgentToolOptions } from './agents/agent-tool.js';
export {
  handoff,
  handoffToolName,
  type HandoffOptions,
  type HandoffInputData,
  type HandoffInputFilter,
} from './agents/handoff.js';
export { answeredBy, handoffChain, type HandoffLink, type HandoffSlot } from './agents/handoff-conversation.js';
