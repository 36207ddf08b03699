// limits (setup): reads the pipeline's guard stages (their limitsInForce) and deps.model; writes the `limits` slot and the `limits` event; returns no signal.
import type { Stage } from '../../src/engine/stage.js';
import { limitSettings } from '../../src/engine/guard-settings.js';
import { perModelName } from '../../src/model/model-table.js';
import type { LimitsInForce } from './limits-slot.js';

export type { LimitsInForce } from './limits-slot.js';

/** A guard stage that can say which limits it enforces for a model. */
export interface LimitedStage extends Stage {
  limitsInForce(modelName: string | undefined): Partial<LimitsInForce>;
}

function isLimited(stage: Stage): stage is LimitedStage {
  return typeof (stage as Partial<LimitedStage>).limitsInForce === 'function';
}

/** The limits stage of a pipeline whose stages are `stages`; `maxIterations` is the runner's cap. */
export function limits(stages: readonly Stage[], maxIterations: number): Stage {
  const guards = stages.filter(isLimited);
  // A guard's limits depend only on the model: resolved once per model name, not on every run.
  const limitsFor = perModelName((modelName): Readonly<LimitsInForce> => {
    const inForce = {
      ...Object.fromEntries(limitSettings.map((setting) => [setting, null])),
      maxIterations,
    } as LimitsInForce;
    for (const guard of guards) Object.assign(inForce, guard.limitsInForce(modelName));
    return inForce;
  });
  return {
    name: 'limits',
    quiet: true,
    execute(state, ctx) {
      const inForce = limitsFor(ctx.deps.model?.modelName);
      state.limits = { ...inForce };
      ctx.emit('limits', () => ({ ...inForce }));
    },
  };
}
