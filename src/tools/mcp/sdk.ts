// The MCP SDK, loaded when the first server starts: importing stageloop does not load its client, transports and
// validator (~200 files).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { auth, extractWWWAuthenticateParams, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
} from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

import { loadOptional, optionalParts } from '../../common/optional-package.js';

export interface McpSdk {
  Client: typeof Client;
  SSEClientTransport: typeof SSEClientTransport;
  StdioClientTransport: typeof StdioClientTransport;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  StreamableHTTPError: typeof StreamableHTTPError;
  McpError: typeof McpError;
  ErrorCode: typeof ErrorCode;
  AjvJsonSchemaValidator: typeof AjvJsonSchemaValidator;
  ElicitRequestSchema: typeof ElicitRequestSchema;
  CreateMessageRequestSchema: typeof CreateMessageRequestSchema;
  ListRootsRequestSchema: typeof ListRootsRequestSchema;
  ToolListChangedNotificationSchema: typeof ToolListChangedNotificationSchema;
}

/** The OAuth half of the SDK, loaded for HTTP servers only (a stdio server starts without it and its JWT library). */
export interface McpAuthSdk {
  auth: typeof auth;
  extractWWWAuthenticateParams: typeof extractWWWAuthenticateParams;
  UnauthorizedError: typeof UnauthorizedError;
  ClientCredentialsProvider: typeof ClientCredentialsProvider;
  PrivateKeyJwtProvider: typeof PrivateKeyJwtProvider;
}

let loading: Promise<McpSdk> | undefined;
/** Set once loaded: code that runs only after a server was reached may read it synchronously. */
export let loadedSdk: McpSdk | undefined;

export function loadSdk(): Promise<McpSdk> {
  loading ??= loadOptional('stageloop/mcp', optionalParts.mcp, () =>
    Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/sse.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
      import('@modelcontextprotocol/sdk/validation/ajv'),
    ]),
  ).then(([client, sse, stdio, http, types, ajv]) => {
    loadedSdk = {
      Client: client.Client,
      SSEClientTransport: sse.SSEClientTransport,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
      AjvJsonSchemaValidator: ajv.AjvJsonSchemaValidator,
      ElicitRequestSchema: types.ElicitRequestSchema,
      CreateMessageRequestSchema: types.CreateMessageRequestSchema,
      ListRootsRequestSchema: types.ListRootsRequestSchema,
      ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    };
    return loadedSdk;
  });
  return loading;
}

let loadingAuth: Promise<McpAuthSdk> | undefined;

export function loadAuthSdk(): Promise<McpAuthSdk> {
  loadingAuth ??= loadOptional('stageloop/mcp', optionalParts.mcp, () =>
    Promise.all([
      import('@modelcontextprotocol/sdk/client/auth.js'),
      import('@modelcontextprotocol/sdk/client/auth-extensions.js'),
    ]),
  ).then(([oauth, extensions]) => ({
    auth: oauth.auth,
    extractWWWAuthenticateParams: oauth.extractWWWAuthenticateParams,
    UnauthorizedError: oauth.UnauthorizedError,
    ClientCredentialsProvider: extensions.ClientCredentialsProvider,
    PrivateKeyJwtProvider: extensions.PrivateKeyJwtProvider,
  }));
  return loadingAuth;
}
