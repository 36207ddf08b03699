// Checks a reply's tool calls before they run (think's repair turns): unknown names, names in another case, arguments
// that are not one JSON object, and text-protocol Action lines the adapter could not read. Pure functions.
import type {} from '../plan/plan-slot.js';
import type { ChatMessage, ChatResponse, ToolCall, ToolDefinition } from '../../src/model/types.js';
import { parseArguments } from '../../src/tools/call-arguments.js';

/** What was wrong with a reply's tool calls, each problem in words the model can act on. */
export interface ToolCallCheck {
  problems: string[];
  /** Calls whose only problem is the case of the tool name, with the name the tool box knows. */
  renamed: readonly ToolCall[];
}

const noneRenamed: readonly ToolCall[] = Object.freeze([]);
/** The usual turn's answer (every call fine): one shared object, none made per turn. */
const noProblems: ToolCallCheck = Object.freeze({
  problems: Object.freeze([]) as unknown as string[],
  renamed: noneRenamed,
});

/** Empty `problems` when every call names an offered tool and carries a JSON object. */
export function checkToolCalls(response: ChatResponse, tools: readonly ToolDefinition[]): ToolCallCheck {
  let problems: string[] | undefined;
  if (response.toolCallProblem !== undefined) problems = [response.toolCallProblem];
  let renamed: ToolCall[] | undefined;
  for (const call of response.toolCalls) {
    // The usual call names an offered tool: no list of names is made for it.
    if (offers(tools, call.name)) {
      const problem = argumentsProblem(call);
      if (problem !== undefined) (problems ??= []).push(problem);
      continue;
    }
    const names = tools.map((tool) => tool.name);
    const match = names.find((name) => name.toLowerCase() === call.name.trim().toLowerCase());
    problems ??= [];
    if (match !== undefined) {
      problems.push(`There is no tool "${call.name}": tool names are case-sensitive, the tool is "${match}".`);
      (renamed ??= []).push({ ...call, name: match });
      const problem = argumentsProblem(call);
      if (problem !== undefined) problems.push(problem);
    } else {
      problems.push(`There is no tool "${call.name}". The tools are: ${names.join(', ') || '(none)'}.`);
    }
  }
  if (problems === undefined) return noProblems;
  return { problems, renamed: renamed ?? noneRenamed };
}

function offers(tools: readonly ToolDefinition[], name: string): boolean {
  for (let index = 0; index < tools.length; index++) if (tools[index]!.name === name) return true;
  return false;
}

function argumentsProblem(call: ToolCall): string | undefined {
  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) {
    return `The arguments of your call to "${call.name}" are not valid JSON (${parsed.reason}): ${excerpt(call.arguments)}. Send them as one JSON object, with double quotes and no trailing commas.`;
  }
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    return `The arguments of your call to "${call.name}" are ${kind}, not a JSON object: ${excerpt(call.arguments)}. Send one JSON object with the tool's parameters as keys.`;
  }
  return undefined;
}

function excerpt(text: string): string {
  const oneLine = JSON.stringify(text);
  return oneLine.length > 300 ? `${oneLine.slice(0, 300)}...` : oneLine;
}

/**
 * The messages a repair request adds after the conversation: what the model wrote (as text, since calls that cannot run
 * get no tool reply) and what was wrong with it.
 */
export function repairMessages(response: ChatResponse, problems: readonly string[]): ChatMessage[] {
  const written = [response.content, ...response.toolCalls.map((call) => `Tool call: ${call.name} ${call.arguments}`)]
    .filter((part) => part.trim() !== '')
    .join('\n');
  return [
    { role: 'assistant', content: written === '' ? '(an empty reply)' : written },
    {
      role: 'user',
      content: `Your tool call could not be used, so nothing was run:\n- ${problems.join('\n- ')}\nWrite the tool call again, corrected (or give your final answer if you need no tool).`,
    },
  ];
}

/**
 * The reply's calls as think hands them on: copies (a model keeping its reply sees no later change), their ids ending in the suffix the plan branch gave a step running beside others.
 */
export function callsToRun(
  callIdSuffix: string | undefined,
  step: number | null,
  toolCalls: readonly ToolCall[],
): ToolCall[] {
  const suffix = step === null ? '' : (callIdSuffix ?? '');
  const calls: ToolCall[] = [];
  for (const call of toolCalls) calls.push({ id: `${call.id}${suffix}`, name: call.name, arguments: call.arguments });
  return calls;
}
