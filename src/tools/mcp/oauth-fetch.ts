// The fetch an OAuth-protected server's transport uses: the saved token on every request; a 401 (or a 403 asking for
// more scope) runs the SDK's authorization, waits for the person's approval, and sends the request once more.
import type { FetchLike, OAuthClientProvider } from '@modelcontextprotocol/client';
import type { McpAuthSdk } from './sdk.js';

/** A provider that can wait for the code of the authorization it started (McpOAuthProvider). */
type AuthorizingProvider = OAuthClientProvider & { authorizationCode?(): Promise<string> };

/** Authorization rounds one request may start: a 401, then one step up in scope. */
const MAX_ROUNDS = 2;

export function authorizingFetch(
  sdk: McpAuthSdk,
  provider: AuthorizingProvider,
  serverUrl: URL,
  /** Skips the RFC 8414 issuer-echo check (the server's `oauth.skipIssuerCheck`). */
  skipIssuerMetadataValidation = false,
): FetchLike {
  // A challenge answered once and sent again means the server will not take what we can get: no loop.
  const answered = new Set<string>();
  return async (input, init) => {
    const send = async (): Promise<Response> => {
      const headers = new Headers(init?.headers);
      const tokens = await provider.tokens();
      if (tokens) headers.set('Authorization', `Bearer ${tokens.access_token}`);
      return fetch(input, { ...init, headers });
    };
    let response = await send();
    for (let round = 0; round < MAX_ROUNDS && wantsAuthorization(sdk, response); round += 1) {
      const challenge = `${response.status} ${response.headers.get('www-authenticate') ?? ''}`;
      if (answered.has(challenge)) break;
      answered.add(challenge);
      const { resourceMetadataUrl, scope } = sdk.extractWWWAuthenticateParams(response);
      await response.body?.cancel().catch(() => undefined);
      const options: AuthOptions = {
        serverUrl,
        ...(resourceMetadataUrl && { resourceMetadataUrl }),
        ...(scope && { scope }),
        ...(skipIssuerMetadataValidation && { skipIssuerMetadataValidation }),
      };
      if ((await authorize(sdk, provider, options)) === 'REDIRECT') {
        if (!provider.authorizationCode) break;
        const authorizationCode = await provider.authorizationCode();
        await sdk.auth(provider, { ...options, authorizationCode });
      }
      response = await send();
    }
    if (response.ok) answered.clear();
    return response;
  };
}

type AuthOptions = Parameters<McpAuthSdk['auth']>[1];

/**
 * The SDK's authorization. Metadata naming another issuer on the same origin as where it was found (the 2025-03-26
 * layout: metadata at the root, issuer at its /oauth path) is taken, and the options keep that for the code exchange;
 * an issuer on another origin stays the SDK's error (RFC 8414 3.3 guards against a mix-up of servers).
 */
async function authorize(sdk: McpAuthSdk, provider: AuthorizingProvider, options: AuthOptions) {
  try {
    return await sdk.auth(provider, options);
  } catch (error) {
    if (
      !(error instanceof sdk.IssuerMismatchError) ||
      error.kind !== 'metadata' ||
      options.skipIssuerMetadataValidation === true ||
      !sameOrigin(error.expected, error.received)
    )
      throw error;
    options.skipIssuerMetadataValidation = true;
    return sdk.auth(provider, options);
  }
}

function sameOrigin(first: string | undefined, second: string | undefined): boolean {
  if (first === undefined || second === undefined || !URL.canParse(first) || !URL.canParse(second)) return false;
  return new URL(first).origin === new URL(second).origin;
}

function wantsAuthorization(sdk: McpAuthSdk, response: Response): boolean {
  if (response.status === 401) return true;
  return response.status === 403 && sdk.extractWWWAuthenticateParams(response).error === 'insufficient_scope';
}
