// finalOutput(inner, { schema }) (iteration): wraps the stage that ends the loop (think in ReAct, replan in Plan-Execute-Replan); reads the task, answer and plan results; writes usage and the finalOutput slot; returns the inner signal, or abortRun 'invalid_output'.
import { z } from 'zod';
import type { JsonValue } from '../../src/common/json.js';
import { abortRun, type Signal } from '../../src/engine/signal.js';
import type { Stage, StageContext } from '../../src/engine/stage.js';
import { addUsage, type RunState } from '../../src/engine/state.js';
import { repairMessage, stripCodeFences } from '../../src/model/structured-output.js';
import { ModelError, type ChatRequest, type ChatResponse } from '../../src/model/types.js';
import { renderResults } from '../shared/prompts.js';
import { parseStructured } from '../shared/structured-output.js';
import type {} from '../plan/plan-slot.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    final_output: { ok: boolean; attempts: number; error?: string };
  }
}

export type FinalOutputSlot =
  { ok: true; value: JsonValue; attempts: number } | { ok: false; error: string; attempts: number };

declare module '../../src/engine/state.js' {
  interface StageSlots {
    finalOutput: FinalOutputSlot;
  }
}

export interface FinalOutputOptions<Schema extends z.ZodType = z.ZodType> {
  /** What the final answer must be; its JSON schema goes to the model as the response format. */
  schema: Schema;
  /** The response format's name (default `final_output`). */
  name?: string;
}

const instructions =
  "You turn an agent's finished work into its final answer as one JSON value matching the given schema. Use only what the work found; do not invent values.";

/** Wraps `inner` (keeping its name): when it ends the loop as completed, the final answer is also produced as structured output. */
export function finalOutput<Schema extends z.ZodType>(inner: Stage, options: FinalOutputOptions<Schema>): Stage {
  const name = options.name ?? 'final_output';
  return {
    name: inner.name,
    // It asks the model itself, whatever the inner stage needs.
    needs: { ...inner.needs, deps: [...(inner.needs?.deps ?? []), 'model'] },
    async execute(state, ctx) {
      const signal = await inner.execute(state, ctx);
      if (!signal || signal.type !== 'break_loop' || signal.kind !== 'completed') return signal;
      return produce(state, ctx, options.schema, name, signal);
    },
  };
}

/** The stage that ends the loop, wrapped by finalOutput when a pipeline is given an output schema. */
export function withOutput(stage: Stage, schema: z.ZodType | undefined): Stage {
  return schema === undefined ? stage : finalOutput(stage, { schema });
}

/** The typed output of a run with an outputSchema (the engine's `outputOf`, exported here beside the stage that makes it). */
export { outputOf } from '../../src/engine/run-output.js';

async function produce(
  state: RunState,
  ctx: StageContext,
  schema: z.ZodType,
  name: string,
  completed: Signal,
): Promise<Signal> {
  const model = ctx.deps.model;
  if (model === undefined) throw new Error('finalOutput needs a model: pass deps.model to runPipeline');
  const request: ChatRequest = {
    messages: [
      { role: 'system', content: instructions },
      { role: 'user', content: workOf(state) },
    ],
    responseFormat: { name, schema },
    purpose: 'final_output',
  };
  let attempts = 0;
  let problem = '';
  // One attempt, then one repair that shows the model what was wrong (adapters that validate themselves repair inside).
  while (attempts < 2) {
    attempts += 1;
    let response: ChatResponse;
    try {
      response = await model.chat(request, ctx.signal);
    } catch (error) {
      // An adapter that already repaired once says invalid_response: that is the answer's fault, not the run's.
      if (!(error instanceof ModelError && error.kind === 'invalid_response')) throw error;
      problem = error.message;
      break;
    }
    addUsage(state.usage, response.usage);
    const parsed = parseStructured(response, schema);
    if (parsed.ok) {
      const value = toJson(response, parsed.value);
      state.finalOutput = { ok: true, value, attempts };
      state.output = value;
      ctx.emit('final_output', { ok: true, attempts });
      return completed;
    }
    problem = parsed.problem;
    request.messages = [
      ...request.messages,
      { role: 'assistant', content: response.content },
      { role: 'user', content: repairMessage(problem) },
    ];
  }
  state.finalOutput = { ok: false, error: problem, attempts };
  ctx.emit('final_output', { ok: false, attempts, error: problem });
  return abortRun(`the final answer does not match the output schema: ${problem}`, 'invalid_output');
}

/** What the model is shown: the task, the answer it gave and the plan's results. */
function workOf(state: RunState): string {
  const parts = [`Task: ${state.input.task}`];
  const results = state.plan?.results ?? [];
  if (results.length > 0) parts.push(`Results of the plan steps:\n${renderResults(results)}`);
  if (state.answer !== undefined) parts.push(`Final answer given:\n${state.answer}`);
  return parts.join('\n\n');
}

/** The reply's JSON as sent, before any transform of the schema, so RunState keeps plain JSON. */
function toJson(response: ChatResponse, value: unknown): JsonValue {
  try {
    return JSON.parse(stripCodeFences(response.content)) as JsonValue;
  } catch {
    // A value the adapter parsed from elsewhere: its JSON form.
    return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
  }
}
