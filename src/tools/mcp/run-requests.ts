// What a server asks during a call, answered for the run that makes the call: a question for a person waits for the
// run's person like an approval (the call ends, the run pauses with a decision of kind `elicitation`, and resumes by
// running the call again with the answer); a sampling request is a call of the run's own model, journaled with the
// run (request purpose `sampling:SERVER`), counted in its usage and budget, and refused when it reads as an injection.
import type { ChatMessage } from '../../model/types.js';
import type { McpCallContext } from './call-context.js';
import { StageloopError } from '../../common/stageloop-error.js';
import { currentToolCaller, wantToolCallers } from '../call-scope.js';
import type { McpClientHandlers, McpSamplingRequest, McpSamplingResult } from './client-requests.js';
import { elicitationAnswer, elicitationId, elicitationPending } from './elicitation.js';
import { answeredSoFar, samplingAllowed, type McpSamplingPolicy } from './sampling-gate.js';

export type { McpCallContext } from './call-context.js';

/** Handlers made for each call (McpToolsOptions.handlers takes these or fixed handlers). */
export type McpHandlersFor = (call: McpCallContext) => McpClientHandlers;

export interface McpRunRequestsOptions {
  /** Whether a sampling request's text reads as a prompt injection (the run's detector): such a request is refused. */
  injection?(text: string): boolean;
  /** The most output tokens one sampling request gets, whatever the server asks; default 2,000. */
  maxTokens?: number;
  /** Each server's sampling policy by its name (the config's `sampling`); default `allow`. */
  sampling?: Readonly<Record<string, McpSamplingPolicy>>;
}

const DEFAULT_SAMPLING_TOKENS = 2_000;

/** Elicitation through the run's person (no person: declined), sampling through the run's model (no model: refused). */
export function runClientHandlers(options: McpRunRequestsOptions = {}): McpHandlersFor {
  // The handlers read the calling run (its decisions, model, usage, limits) from the tool call's scope.
  wantToolCallers();
  return (call) => {
    const caller = currentToolCaller();
    let asked = 0;
    let sampled = 0;
    let samplings = 0;
    return {
      async elicit(request) {
        asked += 1;
        const given = (call.callId !== undefined && caller?.decisions?.get(call.callId)) || {};
        const decision = given[elicitationId(asked)];
        if (decision !== undefined) return elicitationAnswer(decision, request);
        // No person: nobody answers now and no store keeps the run until someone does.
        if (caller?.deps.approve === undefined || call.callId === undefined) return { action: 'decline' };
        call.pause(elicitationPending(asked, request, call, answeredSoFar(given)));
        return { action: 'cancel' };
      },
      async sample(request, server) {
        const model = caller?.deps.model;
        if (caller === undefined || model === undefined)
          throw new StageloopError('tool', `stageloop has no model to sample with for "${server}" here`);
        const messages = chatMessagesOf(request);
        const text = messages.map((message) => message.content).join('\n');
        if (options.injection?.(text) === true)
          throw new StageloopError(
            'tool',
            `stageloop refused the sampling request of "${server}": its messages read as a prompt injection`,
          );
        // The config's policy: a person may have to say yes first (the call pauses and runs again once they did).
        samplings += 1;
        const given = (call.callId !== undefined && caller.decisions?.get(call.callId)) || {};
        const person = caller.deps.approve !== undefined && call.callId !== undefined;
        const policy = options.sampling?.[server];
        if (!samplingAllowed(policy, samplings, { messages, maxTokens: request.maxTokens }, call, given, person))
          throw new StageloopError('tool', `the sampling request of "${server}" waits for a person`);
        const left =
          caller.tokenLimit === undefined
            ? Infinity
            : caller.tokenLimit - caller.usage.inputTokens - caller.usage.outputTokens - sampled;
        if (left <= 0)
          throw new StageloopError(
            'tool',
            `stageloop refused the sampling request of "${server}": the run's token budget is spent`,
          );
        const cap = Math.min(request.maxTokens, options.maxTokens ?? DEFAULT_SAMPLING_TOKENS, left);
        const response = await model.chat(
          {
            messages,
            purpose: `sampling:${server}`,
            maxOutputTokens: cap,
            ...(request.temperature !== undefined && { temperature: request.temperature }),
          },
          call.signal,
        );
        sampled += response.usage.inputTokens + response.usage.outputTokens;
        call.reportUsage?.(response.usage);
        return samplingResult(response.content, response.model, response.finishReason === 'length');
      },
    };
  };
}

/** The server's system prompt and messages as the run's model reads them (text; other content named, not sent). */
function chatMessagesOf(request: McpSamplingRequest): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (request.systemPrompt !== undefined) messages.push({ role: 'system', content: request.systemPrompt });
  for (const message of request.messages) {
    const parts = Array.isArray(message.content) ? message.content : [message.content];
    const content = parts.map((part) =>
      'text' in part && typeof part.text === 'string' ? part.text : `[${part.type}]`,
    );
    messages.push({ role: message.role, content: content.join('\n') });
  }
  return messages;
}

function samplingResult(text: string, model: string, cut: boolean): McpSamplingResult {
  return { role: 'assistant', content: { type: 'text', text }, model, stopReason: cut ? 'maxTokens' : 'endTurn' };
}
