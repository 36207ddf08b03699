// Answers what a server asks of stageloop during a call (elicitation, sampling, roots) with the handlers of the call
// in flight (client-requests.ts). Apart from the handlers' types so that the public types never name the SDK loader.
import type { Client } from '@modelcontextprotocol/client';
import type { McpSdk } from './sdk.js';
import type { McpCallers, McpRoot } from './client-requests.js';

/** Answers elicitation, sampling and roots requests of one client; `roots` are read at each request. */
export function answerServerRequests(
  client: Client,
  sdk: McpSdk,
  server: string,
  callers: McpCallers,
  roots: () => readonly McpRoot[],
): void {
  client.setRequestHandler('elicitation/create', async (request) => {
    const elicit = callers.latest('elicit');
    // No person to ask: the server learns it was declined and can go on without the answer.
    return elicit ? elicit(request.params, server) : { action: 'decline' };
  });
  client.setRequestHandler('sampling/createMessage', async (request) => {
    const sample = callers.latest('sample');
    if (!sample)
      throw new sdk.ProtocolError(
        sdk.ProtocolErrorCode.InvalidRequest,
        `stageloop has no model to sample with for "${server}" here`,
      );
    return sample(request.params, server);
  });
  client.setRequestHandler('roots/list', async () => ({
    roots: roots().map((root) => ({ uri: root.uri, ...(root.name !== undefined && { name: root.name }) })),
  }));
}
