// The offline model: deterministic rules that drive both agent shapes on arithmetic tasks with no key and no network.
import {
  combineExpression,
  findExpression,
  lastNumber,
  planTask,
  splitTask,
  stepExpression,
} from './offline-arithmetic.js';
import {
  currentUserText,
  offeredAgents,
  offersCalculator,
  resultLines,
  sessionAnswer,
  toolResults,
} from './offline-request.js';
import { offlineStructured } from './offline-structured.js';
import { skillToLoad, withoutSkillTraffic } from './offline-skills.js';
import {
  emptyUsage,
  ModelError,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ResponseFormat,
  type ToolCall,
} from './types.js';

/** What the offline model says when a request is outside what its rules understand. */
export const offlineNotice =
  'I am the stageloop offline model: a small set of rules that can only work through arithmetic tasks with the calculator tool, ' +
  'so I cannot answer this properly. To use a real model, set OPENAI_API_KEY (and OPENAI_BASE_URL for another ' +
  'OpenAI-compatible server, OPENAI_MODEL to choose the model).';

const maxPlanSteps = 8;

type Reply = { content: string; toolCalls?: ToolCall[] } | { structured: unknown };

/**
 * Reads the request's purpose and messages the way the built-in stages write them: the task or a step brief
 * ("Current step (2 of 3): ..." after "Result: ..." lines), tool results, and the summary brief. No answer is canned:
 * every number comes from the calculator tool.
 */
export class OfflineModel implements ChatModel {
  readonly provider = 'offline';
  readonly modelName = 'stageloop-offline';

  async chat(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    if (signal?.aborted)
      throw new ModelError('aborted', 'the request was cancelled before the offline model answered', {
        cause: signal.reason,
      });
    const reply = this.decide(request);
    const response: ChatResponse = {
      content: '',
      toolCalls: [],
      finishReason: 'stop',
      usage: emptyUsage(),
      model: this.modelName,
      latencyMs: 0,
    };
    if ('structured' in reply) {
      const parsed = validate(request.responseFormat, reply.structured);
      response.content = JSON.stringify(parsed);
      response.parsed = parsed;
    } else {
      response.content = reply.content;
      response.toolCalls = reply.toolCalls ?? [];
      // Its notice is not an answer: the run says so (stopped, cannot_answer) instead of completing with it.
      if (reply.content === offlineNotice) response.cannotAnswer = true;
      if (response.toolCalls.length > 0) response.finishReason = 'tool_calls';
    }
    response.usage = estimateUsage(
      request,
      response.content + response.toolCalls.map((call) => call.arguments).join(''),
    );
    return response;
  }

  private decide(request: ChatRequest): Reply {
    const brief = currentUserText(request.messages);
    switch (request.purpose) {
      case 'plan':
        return { structured: { goal: brief, steps: planTask(brief).slice(0, maxPlanSteps) } };
      case 'replan':
        return {
          structured: { need_replan: false, reason: 'The offline model keeps the plan as it is.', new_steps: [] },
        };
      case 'summarize':
        return { content: summarise(brief) };
      case 'think':
        return reason(request, brief);
      case 'compact':
        // Its notice must never become a session's summary: the memory stage then folds turns extractively.
        throw new ModelError(
          'invalid_response',
          'the offline model does not write conversation summaries (memory falls back to the extractive summary)',
        );
      case 'final_output': {
        // The typed form of the answer given: a number, or an object whose properties are numbers.
        const value =
          request.responseFormat === undefined ? undefined : offlineStructured(request.responseFormat, brief);
        if (value === undefined)
          throw new ModelError(
            'invalid_response',
            'the offline model can only make a number, or an object of numbers, from its answer',
          );
        return { structured: value };
      }
      default:
        if (request.responseFormat !== undefined) {
          throw new ModelError(
            'invalid_response',
            `the offline model cannot produce structured output for purpose "${request.purpose}"`,
          );
        }
        return { content: offlineNotice };
    }
  }
}

/** The step executor and the reasoner: one calculator call per part of the work, then an answer from the results. */
function reason(request: ChatRequest, brief: string): Reply {
  // A skill the task names is loaded first (its text is context, not a result to compute with).
  const skill = skillToLoad(request, brief);
  if (skill !== undefined) return { content: '', toolCalls: [skill] };
  const results = toolResults(withoutSkillTraffic(request.messages));
  const last = results.at(-1);
  const step = /^Current step \(\d+ of \d+\): (.+)$/m.exec(brief);
  if (step) {
    if (last !== undefined) return { content: answerFrom(last.expression, last.content) };
    const earlier = resultLines(brief.slice(0, step.index));
    const previous = lastNumber(earlier.at(-1) ?? '') ?? sessionAnswer(request.messages);
    // "Add the three results": one operation over every result the step depends on.
    const expression =
      combineExpression(
        step[1]!,
        earlier.map((line) => lastNumber(line)).filter((number): number is string => number !== undefined),
      ) ?? stepExpression(step[1]!, previous);
    // A step with no arithmetic of its own carries the previous result forward.
    if (expression === undefined)
      return { content: previous === undefined ? offlineNotice : `The result so far is ${previous}.` };
    return callCalculator(request, expression);
  }
  // Without a plan the parts of the task ("..., then add 10") are worked through one call at a time.
  const parts = splitTask(brief);
  const transfers = (request.tools ?? [])
    .filter((tool) => tool.name.startsWith('transfer_to_'))
    .map((tool) => tool.name);
  if (transfers.length > 0 && results.length === 0 && !offersCalculator(request))
    return handOff(request, brief, transfers);
  const agents = offeredAgents(request);
  if (agents.length > 0 && !offersCalculator(request)) return delegate(request, parts, agents, results);
  if (last === undefined) {
    // "Add 10 to that": an operation with no arithmetic of its own applies to the session's latest answer.
    const expression =
      findExpression(parts[0] ?? brief) ??
      findExpression(brief) ??
      stepExpression(parts[0] ?? brief, sessionAnswer(request.messages));
    return expression === undefined ? { content: offlineNotice } : callCalculator(request, expression);
  }
  const previous = isError(last.content) ? undefined : lastNumber(last.content);
  const next =
    previous === undefined || results.length >= parts.length || !offersCalculator(request)
      ? undefined
      : stepExpression(parts[results.length]!, previous);
  if (next !== undefined) return callCalculator(request, next);
  if (results.length === 1) return { content: answerFrom(last.expression, last.content) };
  const chain = results.map((result) => answerFrom(result.expression, result.content)).join('; ');
  return { content: previous === undefined ? chain : `${chain}. The answer is ${previous}.` };
}

function callCalculator(request: ChatRequest, expression: string): Reply {
  if (!offersCalculator(request)) {
    return {
      content: `I am the stageloop offline model and I need the calculator tool to compute ${expression}, but it is not available here.`,
    };
  }
  const id = `offline_call_${request.messages.length}`;
  return { content: '', toolCalls: [{ id, name: 'calculator', arguments: JSON.stringify({ expression }) }] };
}

/**
 * A coordinator (agents offered as tools, no calculator): every part of the task goes to the next agent in the order
 * offered, all in one turn; the answer is their answers joined.
 */
function delegate(
  request: ChatRequest,
  parts: readonly string[],
  agents: readonly string[],
  results: ReadonlyArray<{ content: string }>,
): Reply {
  if (results.length > 0) return { content: results.map((result) => result.content.trim()).join('; ') };
  const toolCalls = parts.map((part, index) => ({
    id: `offline_call_${request.messages.length}_${index + 1}`,
    name: agents[index % agents.length]!,
    arguments: JSON.stringify({ task: part }),
  }));
  return { content: '', toolCalls };
}

/** A triage agent (handoffs offered, no calculator): the rest goes to the agent the task names, else the first offered. */
function handOff(request: ChatRequest, brief: string, transfers: readonly string[]): Reply {
  const named = transfers.find((name) => brief.toLowerCase().includes(name.slice('transfer_to_'.length).toLowerCase()));
  return {
    content: '',
    toolCalls: [{ id: `offline_call_${request.messages.length}`, name: named ?? transfers[0]!, arguments: '{}' }],
  };
}

function isError(content: string): boolean {
  return /^error\b/i.test(content.trim());
}

function answerFrom(expression: string | undefined, content: string): string {
  if (isError(content)) return `The calculator could not evaluate ${expression ?? 'the expression'}: ${content.trim()}`;
  const number = lastNumber(content);
  if (number === undefined) return content.trim();
  return expression === undefined ? `The result is ${number}.` : `${expression} = ${number}`;
}

/** The summarizer: the final answer is the last step's number, shown with the chain that produced it. */
function summarise(brief: string): string {
  const results = resultLines(brief);
  const stoppedEarly = /^Status: stopped early/m.test(brief);
  const last = results.at(-1);
  if (stoppedEarly) {
    const reasonLine = /^Stop reason: (.+)$/m.exec(brief)?.[1] ?? 'the run stopped early';
    const best = last === undefined ? 'No result was computed before it stopped.' : `The latest result was: ${last}.`;
    return `This is a partial answer from the offline model: ${reasonLine}. ${best}`;
  }
  if (last === undefined) return offlineNotice;
  const number = lastNumber(last);
  const chain = results.join('; ');
  return number === undefined ? chain : `${chain}. The answer is ${number}.`;
}

/** Honours a zod schema in the request: a reply that does not fit it is an invalid response, as from a real server. */
function validate(format: ResponseFormat | undefined, value: unknown): unknown {
  const schema = format?.schema as
    { safeParse?: (input: unknown) => { success: boolean; data?: unknown; error?: unknown } } | undefined;
  if (typeof schema?.safeParse !== 'function') return value;
  const checked = schema.safeParse(value);
  if (!checked.success)
    throw new ModelError('invalid_response', `the offline model's reply does not match the schema "${format!.name}"`);
  return checked.data;
}

/** About four characters a token; marked as estimated. */
function estimateUsage(request: ChatRequest, output: string): ChatResponse['usage'] {
  const input = request.messages.reduce((total, message) => total + message.content.length, 0);
  return {
    inputTokens: Math.ceil(input / 4),
    outputTokens: Math.ceil(output.length / 4),
    cachedInputTokens: 0,
    reasoningTokens: 0,
    estimated: true,
  };
}
