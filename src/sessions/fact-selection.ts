// Which durable facts the prompt shows: all while they fit the budget; past it, the most relevant to the task.
import { loadTokenCounter, messageOverheadTokens } from '../model/token-count.js';
import type { Fact } from './types.js';
import { renderFacts } from './render.js';

/** Lower-case words of three letters or more: what "relevant to the task" is measured in. */
function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
}

/**
 * Relevance beyond the budget: the number of the task's words found in the fact's key and value, then the most
 * recently updated first; facts are taken in that order while they fit. Shown in key order, as stored.
 */
export async function selectFacts(facts: readonly Fact[], task: string, budgetTokens: number): Promise<string[]> {
  const lines = renderFacts(facts);
  const characters = lines.reduce((total, line) => total + line.length + messageOverheadTokens, 0);
  if (characters <= budgetTokens) return lines;
  const count = await loadTokenCounter();
  const costs = lines.map((line) => count(line) + 2);
  if (costs.reduce((total, cost) => total + cost, 0) <= budgetTokens) return lines;
  const taskWords = words(task);
  const score = (fact: Fact) => [...words(`${fact.key} ${fact.value}`)].filter((word) => taskWords.has(word)).length;
  const order = facts
    .map((fact, index) => ({ index, score: score(fact), updated: fact.updated }))
    .sort((a, b) => b.score - a.score || b.updated - a.updated);
  const chosen = new Set<number>();
  let used = 0;
  for (const entry of order) {
    if (used + costs[entry.index]! > budgetTokens) continue;
    used += costs[entry.index]!;
    chosen.add(entry.index);
  }
  return lines.filter((_line, index) => chosen.has(index));
}
