// Turns the graders a dataset line names (JSON) into grader objects, and picks a case's graders.
import { modelJudge, type ModelJudge } from '../../model/judge.js';
import type { ChatModel } from '../../model/types.js';
import type { JsonValue } from '../../common/json.js';
import { StageloopError } from '../../common/stageloop-error.js';
import { jsonSchemaValid, jsonSubset } from './json.js';
import { judge } from './judge.js';
import { numberWithin } from './number.js';
import { maxTime, maxTokens, stopReason, toolCalled, toolNotCalled } from './run-facts.js';
import { contains, exact, normalized, regex } from './text.js';
import type { EvalCase, Grader, GraderSpec } from './types.js';

export const graderTypes = [
  'contains',
  'exact',
  'normalized',
  'regex',
  'number',
  'json-schema',
  'json-subset',
  'tool-called',
  'tool-not-called',
  'stop-reason',
  'max-tokens',
  'max-time',
  'judge',
] as const;

/** Judges by rubric, so identical answers under one rubric are judged once per eval. */
export class JudgePool {
  private readonly judges = new Map<string, ModelJudge>();
  constructor(readonly model: ChatModel | undefined) {}
  judgeFor(rubric: string): ModelJudge | undefined {
    if (this.model === undefined) return undefined;
    let found = this.judges.get(rubric);
    if (found === undefined)
      this.judges.set(rubric, (found = modelJudge({ model: this.model, rubric, purpose: 'eval_judge' })));
    return found;
  }
}

function needExpected<Value>(
  evalCase: EvalCase,
  value: Value | undefined,
  type: string,
  check: (candidate: unknown) => candidate is Value,
): Value {
  const chosen = value ?? evalCase.expected;
  if (!check(chosen))
    throw new StageloopError(
      'usage',
      `the ${type} grader needs a "value" (or the case's "expected")${chosen === undefined ? '' : ` of the right type, got ${JSON.stringify(chosen)}`}`,
    );
  return chosen;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number =>
  typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
const isDefined = (value: unknown): value is JsonValue => value !== undefined;

/** The grader a spec names; a mistake in it (a missing value, a pattern that is no regex) is a usage error naming the case. */
export function graderOf(spec: GraderSpec, evalCase: EvalCase, judges: JudgePool): Grader {
  try {
    return makeGrader(spec, evalCase, judges);
  } catch (error) {
    throw new StageloopError('usage', `case "${evalCase.id}": ${(error as Error).message}`);
  }
}

/** The first grader of a case that cannot be made, as "graders.N: what is wrong" (a judge needs the eval's model: skipped). */
export function graderProblem(evalCase: EvalCase): string | undefined {
  const noJudge = new JudgePool(undefined);
  for (const [index, spec] of (evalCase.graders ?? []).entries()) {
    if (spec.type === 'judge') continue;
    try {
      makeGrader(spec, evalCase, noJudge);
    } catch (error) {
      return `graders.${index}${spec.type === 'regex' ? '.pattern' : ''}: ${(error as Error).message}`;
    }
  }
  return undefined;
}

function makeGrader(spec: GraderSpec, evalCase: EvalCase, judges: JudgePool): Grader {
  const threshold = spec.threshold === undefined ? {} : { threshold: spec.threshold };
  switch (spec.type) {
    case 'contains':
      return contains(needExpected(evalCase, spec.value, 'contains', isDefined), threshold);
    case 'exact':
      return exact(needExpected(evalCase, spec.value, 'exact', isString), threshold);
    case 'normalized':
      return normalized(needExpected(evalCase, spec.value, 'normalized', isString), threshold);
    case 'regex':
      return regex(spec.pattern, { ...threshold, ...(spec.flags !== undefined && { flags: spec.flags }) });
    case 'number':
      return numberWithin(Number(needExpected<number | string>(evalCase, spec.value, 'number', isNumber)), {
        ...threshold,
        ...(spec.tolerance !== undefined && { tolerance: spec.tolerance }),
        ...(spec.relative !== undefined && { relative: spec.relative }),
      });
    case 'json-schema':
      return jsonSchemaValid(spec.schema, threshold);
    case 'json-subset':
      return jsonSubset(needExpected(evalCase, spec.value, 'json-subset', isDefined), threshold);
    case 'tool-called':
      return toolCalled(spec.name, {
        ...threshold,
        ...(spec.arguments !== undefined && { arguments: spec.arguments }),
        ...(spec.times !== undefined && { times: spec.times }),
      });
    case 'tool-not-called':
      return toolNotCalled(spec.name, threshold);
    case 'stop-reason':
      return stopReason(spec.kind, threshold);
    case 'max-tokens':
      return maxTokens(spec.value, threshold);
    case 'max-time':
      return maxTime(spec.ms, threshold);
    case 'judge': {
      const found = judges.judgeFor(spec.rubric);
      if (found === undefined)
        throw new StageloopError(
          'usage',
          `it has a judge grader but no judge model is set: pass --judge-model NAME (a model server is needed), or drop the judge grader`,
        );
      return judge({ rubric: spec.rubric, judge: found, ...threshold });
    }
  }
}

/** The case's own graders (else "the answer contains `expected`" when it has one), then the eval's; with none at all, "the run completed". */
export function gradersFor(evalCase: EvalCase, shared: readonly Grader[], judges: JudgePool): Grader[] {
  const own = (evalCase.graders ?? []).map((spec) => graderOf(spec, evalCase, judges));
  if (own.length === 0 && evalCase.expected !== undefined) own.push(contains(evalCase.expected));
  const all = [...own, ...shared];
  return all.length > 0 ? all : [stopReason('completed')];
}
