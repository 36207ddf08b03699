// mapWithConcurrency: runs async work over a list with at most `limit` in flight; results keep the input order.

export function mapWithConcurrency<Item, Result>(
  items: readonly Item[],
  limit: number,
  work: (item: Item, index: number) => Promise<Result>,
): Promise<Result[]> {
  // One item (the usual turn) needs no Promise.all; within the limit every item starts at once, no lanes needed.
  if (items.length === 1) return work(items[0]!, 0).then(inList);
  if (items.length <= limit) return Promise.all(items.map(work));
  return inLanes(items, limit, work);
}

async function inLanes<Item, Result>(
  items: readonly Item[],
  limit: number,
  work: (item: Item, index: number) => Promise<Result>,
): Promise<Result[]> {
  const results = new Array<Result>(items.length);
  let next = 0;
  // Each lane takes the next unclaimed index until none is left; JS is single-threaded so `next++` is safe.
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as Item, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, lane));
  return results;
}

/** One result as a list (the one-call batch). */
export function inList<Result>(result: Result): Result[] {
  return [result];
}
