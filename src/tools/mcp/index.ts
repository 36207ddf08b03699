// MCP tools: the servers' tools as stageloop Tools (mcpTools), the process pool that starts each server once.
export { mcpTools, loadMcpTools, mcpToolOrigin, type McpToolsOptions, type McpToolInfo } from './mcp-tools.js';
export { McpServerPool, processMcpPool, closeMcpServers } from './pool.js';
export { McpConnection, type McpConnectionOptions } from './connection.js';
export { prefixedToolName } from './names.js';
export { contentText } from './content.js';
export {
  type McpClientHandlers,
  type McpElicitation,
  type McpElicitationAnswer,
  type McpSamplingRequest,
  type McpSamplingResult,
  type McpRoot,
} from './client-requests.js';
export { type McpProgress } from './mcp-call.js';
export {
  runClientHandlers,
  type McpHandlersFor,
  type McpCallContext,
  type McpRunRequestsOptions,
} from './run-requests.js';
export type { McpSamplingPolicy } from './sampling-gate.js';
export { checkElicitationAnswers, elicitationProblem, CANCEL_MESSAGE } from './elicitation.js';
export {
  McpOAuthProvider,
  fileCredentialStore,
  memoryCredentialStore,
  defaultCredentialStore,
  MCP_OAUTH_REDIRECT,
  type McpOAuthSettings,
  type McpCredentialStore,
  type McpSavedCredentials,
  type McpAuthorizer,
} from './oauth.js';
export {
  MCP_SERVER_NAME_PATTERN,
  describeTransport,
  isHttpServer,
  type McpServer,
  type McpServerSpec,
  type McpStdioServer,
  type McpHttpServer,
  type McpToolOrigin,
  type McpServerSettings,
} from './types.js';
