// One line of a text for events, summaries and listings: whitespace runs become one space, and a text cut at `limit`
// ends in an ellipsis so it does not read as the whole.
export function shortText(text: string, limit = 80, ellipsis = '…'): string {
  // Most texts are one plain line already: no copy for them.
  const flat = /[^\S ]| {2}|^ | $/.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
  return flat.length > limit ? `${flat.slice(0, limit - ellipsis.length)}${ellipsis}` : flat;
}
