// Which OAuth provider a remote server gets, by the grant its settings name: a person's approval (authorization code,
// the default), a machine's own secret or key (client credentials), or the company's identity provider (cross-app
// access, SEP-990: the IdP's ID token is exchanged for an ID-JAG, and that for the server's access token).
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import { defaultCredentialStore, McpOAuthProvider } from './oauth.js';
import type { McpAuthorizer, McpCredentialStore } from './oauth-types.js';
import type { McpAuthSdk } from './sdk.js';
import type { McpHttpServer } from './types.js';

export function oauthProvider(
  sdk: McpAuthSdk,
  server: McpHttpServer & { name: string },
  options: { credentials?: McpCredentialStore; authorizer?: McpAuthorizer },
): OAuthClientProvider {
  const settings = server.oauth ?? {};
  const scope = settings.scopes?.join(' ');
  const { clientId, clientSecret, idp } = settings;
  if (settings.grant === 'client_credentials' && clientId !== undefined) {
    if (settings.privateKey !== undefined)
      return new sdk.PrivateKeyJwtProvider({
        clientId,
        privateKey: settings.privateKey,
        algorithm: 'ES256',
        ...(scope && { scope }),
      });
    return new sdk.ClientCredentialsProvider({ clientId, clientSecret: clientSecret ?? '', ...(scope && { scope }) });
  }
  if (settings.grant === 'cross_app_access' && clientId !== undefined && idp !== undefined)
    return new sdk.CrossAppAccessProvider({
      clientId,
      clientSecret: clientSecret ?? '',
      clientName: 'stageloop',
      // Asked again whenever a token is needed: the ID-JAG is short-lived, the ID token is the person's session.
      assertion: async (context) => {
        const request = {
          audience: context.authorizationServerUrl,
          resource: context.resourceUrl,
          idToken: idp.idToken,
          clientId: idp.clientId,
          ...(idp.clientSecret !== undefined && { clientSecret: idp.clientSecret }),
          ...(context.scope !== undefined && { scope: context.scope }),
          fetchFn: context.fetchFn,
        };
        // The IdP's token endpoint when given; otherwise found in its OpenID metadata.
        const grant = idp.tokenEndpoint
          ? await sdk.requestJwtAuthorizationGrant({ ...request, tokenEndpoint: idp.tokenEndpoint })
          : await sdk.discoverAndRequestJwtAuthGrant({ ...request, idpUrl: idp.url });
        return grant.jwtAuthGrant;
      },
    });
  return new McpOAuthProvider({
    server: server.name,
    url: server.url,
    settings,
    store: options.credentials ?? defaultCredentialStore(),
    ...(options.authorizer && { authorizer: options.authorizer }),
  });
}
