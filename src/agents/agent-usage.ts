// An agent's run as a node of the calling run's `agents` tree: its whole usage, its cost at the listed prices, and the
// agents it ran in turn. Its own tokens (its usage less its agents') are priced at its model's price, each agent's
// at its own: a tree of agents on different models costs what each model charges.
import type { AgentUsage } from '../engine/run-result.js';
import type { Usage } from '../engine/state.js';
import { costUsd, priceFor } from '../model/model-prices.js';

export function agentUsageNode(
  name: string,
  run: { runId: string; model: string; usage: Usage; agents?: AgentUsage[] | undefined },
): AgentUsage {
  const children = run.agents ?? [];
  const node: AgentUsage = { name, runId: run.runId, model: run.model, usage: { ...run.usage }, children };
  const price = priceFor(run.model);
  const childCosts = children.map((child) => child.cost);
  if (price === undefined || childCosts.some((cost) => cost === undefined)) return node;
  const own = { ...run.usage };
  for (const child of children) {
    own.inputTokens -= child.usage.inputTokens;
    own.outputTokens -= child.usage.outputTokens;
    own.cachedInputTokens -= child.usage.cachedInputTokens;
    own.cacheWriteInputTokens = (own.cacheWriteInputTokens ?? 0) - (child.usage.cacheWriteInputTokens ?? 0);
  }
  node.cost = costUsd(own, price) + childCosts.reduce<number>((total, cost) => total + cost!, 0);
  return node;
}
