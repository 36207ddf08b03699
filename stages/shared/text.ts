// Text helpers every stage family uses.
import { shortText as clipped } from '../../src/common/short-text.js';

/** One line of at most `limit` characters, for events and summaries. */
export function shortText(text: string, limit = 200): string {
  return clipped(text, limit, '...');
}
