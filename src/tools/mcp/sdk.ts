// The MCP SDK's client (`@modelcontextprotocol/client` 2.x), loaded when the first server starts: importing stageloop
// does not load its client, transports and validator.
import type {
  auth,
  Client,
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  discoverAndRequestJwtAuthGrant,
  extractWWWAuthenticateParams,
  IssuerMismatchError,
  requestJwtAuthorizationGrant,
  PrivateKeyJwtProvider,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  specTypeSchemas,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

import { loadOptional, optionalParts } from '../../common/optional-package.js';

export interface McpSdk {
  Client: typeof Client;
  SSEClientTransport: typeof SSEClientTransport;
  StdioClientTransport: typeof StdioClientTransport;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  /** A local failure (timeout, closed connection, HTTP status: `SdkHttpError` carries it). */
  SdkError: typeof SdkError;
  SdkErrorCode: typeof SdkErrorCode;
  /** An error the other side answered (a JSON-RPC error code). */
  ProtocolError: typeof ProtocolError;
  ProtocolErrorCode: typeof ProtocolErrorCode;
  AjvJsonSchemaValidator: typeof AjvJsonSchemaValidator;
  /** The spec's schemas by name, for the methods the SDK has no typed surface for (tasks). */
  schemas: typeof specTypeSchemas;
}

/** The OAuth half of the SDK, used for HTTP servers only. */
export interface McpAuthSdk {
  auth: typeof auth;
  extractWWWAuthenticateParams: typeof extractWWWAuthenticateParams;
  UnauthorizedError: typeof UnauthorizedError;
  IssuerMismatchError: typeof IssuerMismatchError;
  ClientCredentialsProvider: typeof ClientCredentialsProvider;
  PrivateKeyJwtProvider: typeof PrivateKeyJwtProvider;
  CrossAppAccessProvider: typeof CrossAppAccessProvider;
  discoverAndRequestJwtAuthGrant: typeof discoverAndRequestJwtAuthGrant;
  requestJwtAuthorizationGrant: typeof requestJwtAuthorizationGrant;
}

type ClientModule = typeof import('@modelcontextprotocol/client');

let loadingModule: Promise<ClientModule> | undefined;
/** Set once loaded: code that runs only after a server was reached may read it synchronously. */
export let loadedSdk: McpSdk | undefined;

function clientModule(): Promise<ClientModule> {
  loadingModule ??= loadOptional(
    'stageloop/mcp',
    optionalParts.mcpClient,
    () => import('@modelcontextprotocol/client'),
  );
  return loadingModule;
}

let loading: Promise<McpSdk> | undefined;

export function loadSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    clientModule(),
    loadOptional('stageloop/mcp', optionalParts.mcpClient, () => import('@modelcontextprotocol/client/stdio')),
    loadOptional('stageloop/mcp', optionalParts.mcpClient, () => import('@modelcontextprotocol/client/validators/ajv')),
  ]).then(([client, stdio, ajv]) => {
    loadedSdk = {
      Client: client.Client,
      SSEClientTransport: client.SSEClientTransport,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: client.StreamableHTTPClientTransport,
      SdkError: client.SdkError,
      SdkErrorCode: client.SdkErrorCode,
      ProtocolError: client.ProtocolError,
      ProtocolErrorCode: client.ProtocolErrorCode,
      AjvJsonSchemaValidator: ajv.AjvJsonSchemaValidator,
      schemas: client.specTypeSchemas,
    };
    return loadedSdk;
  });
  return loading;
}

let loadingAuth: Promise<McpAuthSdk> | undefined;

export function loadAuthSdk(): Promise<McpAuthSdk> {
  loadingAuth ??= clientModule().then((client) => ({
    auth: client.auth,
    extractWWWAuthenticateParams: client.extractWWWAuthenticateParams,
    UnauthorizedError: client.UnauthorizedError,
    IssuerMismatchError: client.IssuerMismatchError,
    ClientCredentialsProvider: client.ClientCredentialsProvider,
    PrivateKeyJwtProvider: client.PrivateKeyJwtProvider,
    CrossAppAccessProvider: client.CrossAppAccessProvider,
    discoverAndRequestJwtAuthGrant: client.discoverAndRequestJwtAuthGrant,
    requestJwtAuthorizationGrant: client.requestJwtAuthorizationGrant,
  }));
  return loadingAuth;
}
