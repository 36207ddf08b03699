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
      const options = {
        serverUrl,
        ...(resourceMetadataUrl && { resourceMetadataUrl }),
        ...(scope && { scope }),
        ...(skipIssuerMetadataValidation && { skipIssuerMetadataValidation }),
      };
      if ((await sdk.auth(provider, options)) === 'REDIRECT') {
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

function wantsAuthorization(sdk: McpAuthSdk, response: Response): boolean {
  if (response.status === 401) return true;
  return response.status === 403 && sdk.extractWWWAuthenticateParams(response).error === 'insufficient_scope';
}
