/** @module stageloop/mcp */
// 'stageloop/mcp': the tools of MCP servers as stageloop tools, each server started once per process. The MCP SDK
// (@modelcontextprotocol/client, an optional package) loads when the first server is opened.
export {
  mcpTools,
  loadMcpTools,
  mcpToolOrigin,
  McpServerPool,
  processMcpPool,
  closeMcpServers,
  prefixedToolName,
  type McpToolsOptions,
  type McpToolInfo,
  type McpServer,
  type McpServerSpec,
  type McpStdioServer,
  type McpHttpServer,
  type McpToolOrigin,
  runClientHandlers,
  checkElicitationAnswers,
  type McpClientHandlers,
  type McpHandlersFor,
  type McpCallContext,
  type McpRunRequestsOptions,
  type McpSamplingPolicy,
} from '../tools/mcp/index.js';
