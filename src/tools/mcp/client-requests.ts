// What a server may ask of stageloop while it serves a call: a person's answer (elicitation), a model's completion
// (sampling), the roots it may work in. Requests go to the handlers of the call in flight; with none, declined.
import type {
  ClientCapabilities,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
} from '@modelcontextprotocol/client';

/** A server's question for a person: a form (`requestedSchema`) or a URL to open. */
export type McpElicitation = ElicitRequest['params'];
export type McpElicitationAnswer = ElicitResult;
export type McpSamplingRequest = CreateMessageRequest['params'];
export type McpSamplingResult = CreateMessageResult;

/** A folder or file a server may work in, announced through `roots/list`. */
export interface McpRoot {
  uri: string;
  name?: string;
}

/** Who answers a server's requests during a call; each absent handler declines. */
export interface McpClientHandlers {
  /** A person answers the server's form or URL; without one, the request is declined. */
  elicit?(request: McpElicitation, server: string): Promise<McpElicitationAnswer>;
  /** The run's model answers the server's messages; without one, the request fails with "no model". */
  sample?(request: McpSamplingRequest, server: string): Promise<McpSamplingResult>;
}

/** What stageloop tells every server it can do; servers hide tools from clients without these. */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
  // The SDK fills the form's defaults into an accepted answer (SEP-1034).
  elicitation: { form: { applyDefaults: true }, url: {} },
  sampling: {},
  roots: { listChanged: true },
};

/** The handlers of the calls in flight, latest last: a request during a call goes to that call's handlers. */
export class McpCallers {
  readonly #stack: McpClientHandlers[] = [];

  async during<Value>(handlers: McpClientHandlers | undefined, work: () => Promise<Value>): Promise<Value> {
    if (handlers === undefined) return work();
    this.#stack.push(handlers);
    try {
      return await work();
    } finally {
      this.#stack.splice(this.#stack.lastIndexOf(handlers), 1);
    }
  }

  latest<Key extends keyof McpClientHandlers>(key: Key): McpClientHandlers[Key] {
    for (let index = this.#stack.length - 1; index >= 0; index -= 1) {
      const handler = this.#stack[index]![key];
      if (handler !== undefined) return handler.bind(this.#stack[index]) as McpClientHandlers[Key];
    }
    return undefined;
  }
}
