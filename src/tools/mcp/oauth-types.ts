// The shapes of OAuth for remote MCP servers that the public types name (oauth.ts does the work): kept apart so that a
// consumer's type check never reads the provider class, which implements the SDK's interface.
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client';

/** The config's `oauth` of an HTTP server; every key may be left out (discovery and dynamic registration). */
export interface McpOAuthSettings {
  /** A pre-registered client's id, or the https URL of this client's metadata document (CIMD). */
  clientId?: string;
  /** The pre-registered client's secret (a confidential client). */
  clientSecret?: string;
  /** Scopes to ask for; default the ones the server names in its challenge or metadata. */
  scopes?: readonly string[];
  /** `client_credentials`: a machine client with its own secret or `privateKey`, no person involved.
   * `cross_app_access` (SEP-990, enterprise-managed): the `idp`'s ID token stands for the person. */
  grant?: 'authorization_code' | 'client_credentials' | 'cross_app_access';
  /** PEM key for private_key_jwt client authentication (with `grant: 'client_credentials'`). */
  privateKey?: string;
  /** The company's identity provider (with `grant: 'cross_app_access'`): its issuer URL, this client there, and the
   * person's ID token, exchanged there for an ID-JAG (RFC 8693) that the server's authorization server takes. */
  idp?: McpIdentityProvider;
  /** Takes an authorization server whose metadata names another `issuer` than the URL it was found at (RFC 8414
   * §3.3; some 2025-03-26 era servers). Off by default: the check is a defence against authorization-server mix-up. */
  skipIssuerCheck?: boolean;
}

export interface McpIdentityProvider {
  /** The issuer URL (its OpenID metadata names the token endpoint). */
  url: string;
  /** The token endpoint, when the IdP's metadata does not say it. */
  tokenEndpoint?: string;
  clientId: string;
  clientSecret?: string;
  idToken: string;
}

/** What is kept of one server's authorization: the registered client and the tokens, for the URL they belong to. */
export interface McpSavedCredentials {
  url: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
}

/** Where credentials are kept between processes, per server name. */
export interface McpCredentialStore {
  load(server: string): Promise<McpSavedCredentials | undefined>;
  save(server: string, saved: McpSavedCredentials): Promise<void>;
  /** True when something was removed. */
  remove(server: string): Promise<boolean>;
}

/** Opens the authorization URL (a person approves) and gives back the code the redirect carried. */
export type McpAuthorizer = (authorizationUrl: URL) => Promise<string>;
