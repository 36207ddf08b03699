// Graders of how the run went rather than what it said: tools called, the stop reason, tokens and time spent.
import type { JsonObject } from '../../common/json.js';
import { jsonSubsetScore } from './json.js';
import { preview, type Grader } from './types.js';

/** Passes when the run called tool `name` (at least `times` times, default 1), with arguments containing `args` when given. */
export function toolCalled(
  name: string,
  options: { arguments?: JsonObject; times?: number; threshold?: number } = {},
): Grader {
  const times = options.times ?? 1;
  return {
    name: 'tool-called',
    ...(options.threshold !== undefined && { threshold: options.threshold }),
    grade: ({ toolCalls }) => {
      const named = toolCalls.filter((call) => call.name === name);
      const wanted = options.arguments;
      const matching =
        wanted === undefined
          ? named
          : named.filter((call) => jsonSubsetScore(wanted, call.arguments, 'arguments').score === 1);
      const what = `${name}${wanted === undefined ? '' : ` with ${preview(wanted, 60)}`}`;
      if (matching.length >= times) return { score: 1, reason: `called ${what} ${matching.length}x` };
      if (named.length > 0 && wanted !== undefined)
        return {
          score: 0,
          reason: `called ${name} but not with ${preview(wanted, 60)}: ${jsonSubsetScore(wanted, named[0]!.arguments, 'arguments').reason}`,
        };
      return {
        score: 0,
        reason: `called ${what} ${matching.length}x, expected at least ${times}x${toolCalls.length ? ` (called: ${[...new Set(toolCalls.map((call) => call.name))].join(', ')})` : ' (no tool calls)'}`,
      };
    },
  };
}

/** Passes when the run called no tool (or not tool `name`). */
export function toolNotCalled(name?: string, options: { threshold?: number } = {}): Grader {
  return {
    name: 'tool-not-called',
    ...options,
    grade: ({ toolCalls }) => {
      const calls = toolCalls.filter((call) => name === undefined || call.name === name);
      return calls.length === 0
        ? { score: 1, reason: `no call to ${name ?? 'any tool'}` }
        : { score: 0, reason: `called ${calls.map((call) => call.name).join(', ')}` };
    },
  };
}

/** Passes when the run stopped for one of the given reasons (`completed`, `budget_tokens`, `loop_detected`, ...). */
export function stopReason(kinds: string | readonly string[], options: { threshold?: number } = {}): Grader {
  const allowed = typeof kinds === 'string' ? [kinds] : [...kinds];
  return {
    name: 'stop-reason',
    ...options,
    grade: ({ stopReason: reason }) =>
      allowed.includes(reason.kind)
        ? { score: 1, reason: `stopped with ${reason.kind}` }
        : { score: 0, reason: `stopped with ${reason.kind}, expected ${allowed.join(' or ')}` },
  };
}

/** Passes when the run used at most `limit` tokens (input + output). */
export function maxTokens(limit: number, options: { threshold?: number } = {}): Grader {
  return {
    name: 'max-tokens',
    ...options,
    grade: ({ tokens }) =>
      tokens.total <= limit
        ? { score: 1, reason: `${tokens.total} tokens, within ${limit}` }
        : { score: 0, reason: `${tokens.total} tokens, over ${limit}` },
  };
}

/** Passes when the run took at most `ms` milliseconds. */
export function maxTime(ms: number, options: { threshold?: number } = {}): Grader {
  return {
    name: 'max-time',
    ...options,
    grade: ({ latencyMs }) =>
      latencyMs <= ms
        ? { score: 1, reason: `${Math.round(latencyMs)} ms, within ${ms} ms` }
        : { score: 0, reason: `${Math.round(latencyMs)} ms, over ${ms} ms` },
  };
}
