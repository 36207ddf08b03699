// OAuth 2.1 for remote MCP servers: the SDK does discovery, registration (dynamic, or a client metadata document),
// PKCE, the token exchange and refresh; this provider keeps what it learns per server and hands the authorization URL
// to an authorizer (a person in a browser for `stageloop mcp login`, none during a run).
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/client';
import { StageloopError } from '../../common/stageloop-error.js';
import type { McpAuthorizer, McpCredentialStore, McpOAuthSettings, McpSavedCredentials } from './oauth-types.js';

export type { McpAuthorizer, McpCredentialStore, McpOAuthSettings, McpSavedCredentials };

/** The redirect `stageloop mcp login` listens on; a fixed port so a registered client stays valid. */
export const MCP_OAUTH_REDIRECT = 'http://127.0.0.1:33418/callback';

/** `$STAGELOOP_HOME/mcp-oauth`, else `./.stageloop/mcp-oauth`: beside the default store. */
export function defaultCredentialStore(env: Record<string, string | undefined> = process.env): McpCredentialStore {
  const home = env.STAGELOOP_HOME;
  return fileCredentialStore(join(home !== undefined && home !== '' ? home : '.stageloop', 'mcp-oauth'));
}

/** One JSON file a server, readable by its owner only (they hold tokens). */
export function fileCredentialStore(directory: string): McpCredentialStore {
  const file = (server: string) => join(directory, `${server}.json`);
  return {
    async load(server) {
      try {
        return JSON.parse(await readFile(file(server), 'utf8')) as McpSavedCredentials;
      } catch {
        return undefined;
      }
    },
    async save(server, saved) {
      await mkdir(directory, { recursive: true, mode: 0o700 });
      // A new file, then renamed would be atomic; the file is tiny and rewritten whole, mode set before any token is in.
      await writeFile(file(server), '', { mode: 0o600 });
      await chmod(file(server), 0o600);
      await writeFile(file(server), JSON.stringify(saved, null, 2));
    },
    async remove(server) {
      const existed = (await this.load(server)) !== undefined;
      await rm(file(server), { force: true });
      return existed;
    },
  };
}

/** Credentials kept in this process only. */
export function memoryCredentialStore(): McpCredentialStore {
  const kept = new Map<string, McpSavedCredentials>();
  return {
    load: async (server) => kept.get(server),
    save: async (server, saved) => void kept.set(server, structuredClone(saved)),
    remove: async (server) => kept.delete(server),
  };
}

export interface McpOAuthProviderOptions {
  server: string;
  url: string;
  settings?: McpOAuthSettings;
  store: McpCredentialStore;
  /** Absent during a run: a server that needs a person's approval fails with how to log in. */
  authorizer?: McpAuthorizer;
  redirectUrl?: string;
}

// Shaped as the SDK's OAuthClientProvider (checked where it is handed over): no `implements`, so a consumer's stricter flags
// never re-check the SDK's interface in our declarations.
export class McpOAuthProvider {
  readonly #options: McpOAuthProviderOptions;
  #saved: Promise<McpSavedCredentials> | undefined;
  #verifier: string | undefined;
  #code: Promise<string> | undefined;
  readonly #state = randomUUID();

  constructor(options: McpOAuthProviderOptions) {
    this.#options = options;
  }

  get redirectUrl(): string {
    return this.#options.redirectUrl ?? MCP_OAUTH_REDIRECT;
  }

  get clientMetadataUrl(): string | undefined {
    const id = this.#options.settings?.clientId;
    return id !== undefined && id.startsWith('https://') ? id : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scopes = this.#options.settings?.scopes;
    return {
      client_name: 'stageloop',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(scopes !== undefined && scopes.length > 0 && { scope: scopes.join(' ') }),
    };
  }

  state(): string {
    return this.#state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { clientId, clientSecret } = this.#options.settings ?? {};
    // A pre-registered client (not a metadata document URL) is the config's, never a saved one.
    if (clientId !== undefined && this.clientMetadataUrl === undefined)
      return { client_id: clientId, ...(clientSecret !== undefined && { client_secret: clientSecret }) };
    return (await this.#load()).client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.#update({ client });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.#load()).tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.#update({ tokens });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const authorizer = this.#options.authorizer;
    if (!authorizer)
      throw new StageloopError(
        'tool',
        `MCP server "${this.#options.server}" needs authorization (401): run \`stageloop mcp login ${this.#options.server}\` once, then again`,
      );
    this.#code = authorizer(authorizationUrl);
    // Whoever awaits the code learns of a failure; this copy must not be an unhandled rejection.
    this.#code.catch(() => undefined);
  }

  /** The code of the authorization started last, once the person approved. */
  authorizationCode(): Promise<string> {
    return this.#code ?? Promise.reject(new StageloopError('tool', 'no authorization was started'));
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new StageloopError('tool', 'no authorization was started');
    return this.#verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'discovery') return;
    const saved = { ...(await this.#load()) };
    if (scope === 'all' || scope === 'client') delete saved.client;
    if (scope === 'all' || scope === 'tokens') delete saved.tokens;
    this.#saved = Promise.resolve(saved);
    await this.#options.store.save(this.#options.server, saved);
  }

  #load(): Promise<McpSavedCredentials> {
    const { store, server, url } = this.#options;
    // Credentials saved for another URL under this name belong to another server.
    this.#saved ??= store.load(server).then((saved) => (saved?.url === url ? saved : { url }));
    return this.#saved;
  }

  async #update(change: Partial<McpSavedCredentials>): Promise<void> {
    const saved = { ...(await this.#load()), ...change };
    this.#saved = Promise.resolve(saved);
    await this.#options.store.save(this.#options.server, saved);
  }
}
