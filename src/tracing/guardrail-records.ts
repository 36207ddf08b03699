// What a guard decided, read from the events the guard stages already emit, as `gen_ai.guardrail.result` attributes:
// injection screening, taint holds, budget decisions, loop refusals, approvals and context pruning. The event data is
// read by field name (src/ knows no stage), so a stage may add fields without breaking this.
import type { Attributes } from '@opentelemetry/api';
import { GuardrailAttributes } from './attributes.js';

type EventData = Readonly<Record<string, unknown>>;

interface GuardrailResult {
  policy: string;
  /** What the native value is: `action` for our guards' decisions. */
  type: string;
  value: string;
  reason?: string;
  source?: string;
  category?: string;
  score?: number;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;

/** One reader per event type a guard emits when it acts. */
const readers: Readonly<Record<string, (data: EventData) => GuardrailResult>> = {
  injection_detected: (data) => ({
    policy: 'injection',
    type: 'action',
    value: text(data.action) ?? 'detected',
    reason: Array.isArray(data.rules) ? `matched ${data.rules.join(', ')}` : undefined,
    source: text(data.source),
    category: Array.isArray(data.rules) ? data.rules.join(',') : undefined,
    score: typeof data.score === 'number' ? data.score : undefined,
  }),
  injection_warning: (data) => ({
    policy: 'injection',
    type: 'action',
    value: 'warn',
    reason: text(data.warning),
    source: text(data.source),
  }),
  context_tainted: (data) => ({
    policy: 'taint',
    type: 'action',
    value: 'taint',
    reason: `the context now holds ${text(data.origin) ?? 'untrusted'} content from ${text(data.tool) ?? 'a tool'}`,
    source: `tool:${text(data.tool) ?? ''}`,
  }),
  taint_refused: (data) => ({
    policy: 'taint',
    type: 'action',
    value: 'hold',
    reason: `${text(data.tool) ?? 'a tool'} held: the context holds ${text(data.origin) ?? 'untrusted'} content`,
    source: `tool:${text(data.tool) ?? ''}`,
  }),
  budget_warning: (data) => budget(data, 'warn'),
  budget_exhausted: (data) => budget(data, 'exhausted'),
  budget_stop: (data) => budget(data, 'stop'),
  budget_decided: (data) => budget(data, text(data.action) ?? 'decided'),
  loop_refused: (data) => ({
    policy: 'loop',
    type: 'action',
    value: 'refuse',
    reason: `${text(data.tool) ?? 'a tool'} asked again after ${text(data.requested) ?? 'repeated'} calls`,
    source: `tool:${text(data.tool) ?? ''}`,
  }),
  approval_requested: (data) => ({
    policy: 'approval',
    type: 'action',
    value: 'ask',
    reason: text(data.reason),
    source: `tool:${text(data.tool) ?? ''}`,
  }),
  approval_decided: (data) => ({
    policy: 'approval',
    type: 'action',
    value: data.approve === true ? 'approve' : 'reject',
    source: `tool:${text(data.tool) ?? ''}`,
  }),
  context_pruned: (data) => ({
    policy: 'prune',
    type: 'action',
    value: 'prune',
    reason: `${text(data.tokensBefore) ?? '?'} -> ${text(data.tokensAfter) ?? '?'} tokens`,
  }),
};

function budget(data: EventData, value: string): GuardrailResult {
  const kind = text(data.kind) ?? 'limit';
  const used = text(data.used);
  const limit = text(data.limit);
  return {
    policy: `budget.${kind}`,
    type: 'action',
    value,
    ...(limit !== undefined && { reason: used === undefined ? `limit ${limit}` : `${used} of ${limit}` }),
  };
}

/** The event's guardrail result, or undefined for an event that records no guard decision. */
export function guardrailResultOf(type: string, data: unknown): GuardrailResult | undefined {
  // Own keys only: an event type named like an Object method (`toString`) is no guard's.
  const reader = Object.hasOwn(readers, type) ? readers[type] : undefined;
  return reader === undefined || typeof data !== 'object' || data === null ? undefined : reader(data as EventData);
}

/** The result as the event's attributes; `component` is the guard stage that decided. */
export function guardrailAttributes(result: GuardrailResult, component: string | null): Attributes {
  const attributes: Attributes = {
    [GuardrailAttributes.policyId]: result.policy,
    [GuardrailAttributes.resultType]: result.type,
    [GuardrailAttributes.resultValue]: result.value,
  };
  if (component !== null) attributes[GuardrailAttributes.componentName] = component;
  if (result.reason !== undefined) attributes[GuardrailAttributes.resultReason] = result.reason;
  if (result.source !== undefined) attributes[GuardrailAttributes.source] = result.source;
  if (result.category !== undefined) attributes[GuardrailAttributes.riskCategory] = result.category;
  if (result.score !== undefined) attributes[GuardrailAttributes.riskScore] = result.score;
  return attributes;
}
