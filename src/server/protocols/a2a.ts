// A2A 1.0 as @a2a-js/sdk 1.3 implements it: the agent card at /.well-known/agent-card.json (one skill per pipeline,
// its JSON-RPC interface on this server's /a2a) and the JSON-RPC endpoint (send, stream, get, cancel).
// @a2a-js/sdk is an optional package: it loads on the first A2A request, and its absence is one line naming it.
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { AgentCard } from '@a2a-js/sdk';
import type { JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { packageVersion } from '../../common/version.js';
import { loadOptional } from '../../common/optional-package.js';
import { eventStreamBody, serverSentEvent, serverSentEventsHeaders } from '../../stream/server-sent-events.js';
import { protocolErrorResponse } from './protocol-errors.js';
import type { StartRunServices } from '../start-run.js';
import { agentNamedBy } from './protocol-runs.js';

export const agentCardPath = '/.well-known/agent-card.json';
export const a2aPath = '/a2a';

interface A2aEndpoint {
  card: (origin: string) => AgentCard;
  handler: (origin: string) => JsonRpcTransportHandler;
  contextOf(requestedVersion: string | undefined): import('@a2a-js/sdk/server').ServerCallContext;
}

/** A skill per configured agent not named like a pipeline (a message's `metadata.agent` reaches every agent). */
function agentSkills(services: StartRunServices): AgentCard['skills'] {
  return (services.agents ?? []).flatMap((agent) =>
    agentNamedBy(agent.name, services) === undefined
      ? []
      : [
          {
            id: agent.name,
            name: agent.name,
            description: `${agent.description} (a stageloop agent on the ${agent.pipeline} pipeline; choose it with message metadata { "agent": "${agent.name}" }).`,
            tags: ['stageloop', 'agent', agent.pipeline],
            examples: [],
            inputModes: ['text'],
            outputModes: ['text'],
            securityRequirements: [],
          },
        ],
  );
}

async function loadA2a(services: StartRunServices): Promise<A2aEndpoint> {
  let sdk: typeof import('@a2a-js/sdk');
  let server: typeof import('@a2a-js/sdk/server');
  [sdk, server] = await loadOptional('the A2A endpoints', ['@a2a-js/sdk'], () =>
    Promise.all([import('@a2a-js/sdk'), import('@a2a-js/sdk/server')]),
  );
  const { StageloopAgentExecutor } = await import('./a2a-executor.js');
  const executor = new StageloopAgentExecutor(services);
  const taskStore = new server.InMemoryTaskStore();
  const card = (origin: string): AgentCard => ({
    name: 'stageloop',
    description:
      'stageloop agents: each skill is a pipeline; every task is a recorded, traced run (stageloop runs, show, replay).',
    supportedInterfaces: [
      { url: `${origin}${a2aPath}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: sdk.A2A_PROTOCOL_VERSION },
    ],
    provider: { organization: 'stageloop', url: origin },
    version: packageVersion(),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text'],
    defaultOutputModes: ['text'],
    skills: services.pipelines
      .map((pipeline): AgentCard['skills'][number] => ({
        id: pipeline.name,
        name: pipeline.name,
        description: `The ${pipeline.name} pipeline (${pipeline.iteration.join(', ')}); choose it with message metadata { "skill": "${pipeline.name}" }.`,
        tags: ['stageloop', pipeline.name],
        examples: ['What is 17 * 23 + 4?'],
        inputModes: ['text'],
        outputModes: ['text'],
        securityRequirements: [],
      }))
      .concat(agentSkills(services)),
    documentationUrl: '',
    signatures: [],
  });
  // One request handler per origin the card was served for, sharing one executor and task store.
  const handlers = new Map<string, JsonRpcTransportHandler>();
  return {
    card,
    handler(origin) {
      let known = handlers.get(origin);
      if (known === undefined) {
        known = new server.JsonRpcTransportHandler(new server.DefaultRequestHandler(card(origin), taskStore, executor));
        handlers.set(origin, known);
      }
      return known;
    },
    contextOf: (requestedVersion) =>
      new server.ServerCallContext({
        user: new server.UnauthenticatedUser(),
        ...(requestedVersion !== undefined && { requestedVersion }),
      }),
  };
}

const originOf = (context: Context): string => new URL(context.req.url).origin;

export function a2aRoutes(services: StartRunServices): Hono {
  const app = new Hono();
  let loading: Promise<A2aEndpoint> | undefined;
  const endpoint = () =>
    (loading ??= loadA2a(services).catch((error: unknown) => ((loading = undefined), Promise.reject(error))));
  app.onError((error, context) => protocolErrorResponse(context, error));

  app.get(agentCardPath, async (context) => context.json((await endpoint()).card(originOf(context))));

  app.post(a2aPath, async (context) => {
    const a2a = await endpoint();
    let body: Record<string, unknown>;
    try {
      body = (await context.req.json()) as Record<string, unknown>;
    } catch {
      return context.json({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'the request body is not JSON: send a JSON-RPC 2.0 request' },
      });
    }
    const answer = await a2a.handler(originOf(context)).handle(body, a2a.contextOf(context.req.header('a2a-version')));
    if (!(Symbol.asyncIterator in answer)) return context.json(answer);
    const stream = answer;
    async function* blocks(): AsyncGenerator<string, void, undefined> {
      for await (const event of stream) yield serverSentEvent({ data: event });
    }
    return context.body(eventStreamBody(blocks()) as unknown as ReadableStream<Uint8Array>, 200, {
      ...serverSentEventsHeaders,
    });
  });
  return app;
}
