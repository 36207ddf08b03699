// How the detector scores the text it can read, a helper of injection-detector.ts: rule matches and reader
// directives, each counted a quarter when it is only a mention in a text that discusses attacks. Its own file so the
// detector holds the screening of hidden and encoded text and the sum.
import { injectionRules } from './injection-rules.js';
import { readerFeatures } from './injection-words.js';

/** A match with what it adds to the score (a mention adds a quarter of its weight). */
export interface Scored {
  rule: string;
  /** Offsets into the screened text (UTF-16 units). */
  start: number;
  end: number;
  text: string;
  weight: number;
  mention?: boolean;
}

/**
 * A mention (quoted, or introduced as an example) in text that discusses attacks counts a quarter: such texts quote
 * them. Quotes alone lower nothing: an order in quotation marks is still an order.
 */
const mentionFactor = 0.25;
const discussion =
  /\b(?:prompt[\s-]+injections?|injections?|jailbreak(?:s|ing)?|attack(?:s|ers?)?|payloads?|red[\s-]?team(?:ing)?|adversarial|malicious|security|detect(?:s|ed|ion|ors?)?|classifiers?|filter(?:s|ed)?|flag(?:s|ged)?|blocked|guardrails|researchers?|examples?|phrases?|strings|fixtures?|variants|evaluation|glossary|resist(?:s|ed)?|trained|called)\b/gi;
/** Said next to a quote, these make it an order again: the quote is what the reader is told to do. */
const quoteObeyed =
  /^[^.!?\n]{0,80}?\b(?:do\s+(?:it|that|this|exactly\s+(?:that|this|as\s+it\s+says))|(?:please|now)\s+(?:comply|obey)|follow\s+(?:it|that|this|the\s+quoted)|is\s+what\s+(?:i|we)\s+want\s+you\s+to\s+do|(?:you|assistants?|ai|agents?|models?)\s+(?:must|should|shall|will|need\s+to|have\s+to)\s+(?:now\s+)?(?:follow|obey|do|comply|apply))\b/i;
const negation =
  /\b(?:never|not|don'?t|doesn'?t|shouldn'?t|mustn'?t|cannot|can'?t|won'?t|avoid|refuse\s+to|no\s+one|nobody)\b[^.!?\n]{0,30}$/i;
const mentionCue =
  /(?:(?:such\s+as|like|e\.g\.|i\.e\.|for\s+(?:example|instance)|phrases?|strings?|sentences?|lines?|words?|called|known\s+as|patterns?|payloads?|attacks?|attempts?|examples?|classic|famous|notorious)\s*[:,]?\s*(?:the\s+|a\s+|an\s+)?["“'‘`«]?|(?:cause|get|make|trick|force|convince|manipulate|coax|lead|tries\s+to\s+get)s?\s+(?:the\s+|a\s+|an\s+)?\w+\s+(?:to|into)(?:\s+\w+ing)?)\s*$/i;

/** The rule matches and reader directives in `text`, mentions marked and weighed down. */
export function visibleMatches(text: string): Scored[] {
  const discussed = mentionContext(text, []);
  // Where no word discusses attacks within 300 characters, a match cannot be a mention: its quote is not looked for.
  const near = (start: number, end: number) => discussed.discussedNear(start - 300, end + 300);
  const candidates = [...ruleMatches(text, near), ...readerDirectives(text, near)];
  // Words inside a match or inside a quote that holds one are the payload's own: a second copy of a payload must not
  // find the first copy's words as "discussion" (repetition and lists never lower a score).
  const context = mentionContext(
    text,
    candidates.flatMap((candidate) => [
      [candidate.start, candidate.end] as const,
      ...(candidate.quote === undefined ? [] : [[candidate.quote.open, candidate.quote.close + 1] as const]),
    ]),
  );
  const mentions = new Map<string, number>();
  return candidates.map(({ quote, from, before, rest, ...candidate }) => {
    // Past maxMentionsPerRule a match is counted in full: many "quotations" of one attack are not an article.
    const count = mentions.get(candidate.rule) ?? 0;
    const mention = count < maxMentionsPerRule && isMention(from, candidate.end, before, rest, quote, context);
    if (mention) mentions.set(candidate.rule, count + 1);
    const weight = mention ? candidate.weight * mentionFactor : candidate.weight;
    return { ...candidate, weight: Math.min(1, weight), mention };
  });
}

/** A match before its mention test: where it is quoted on its line, and the text around it. */
interface Candidate extends Omit<Scored, 'mention'> {
  /** Where the mention test starts (a reader directive: at its reader). */
  from: number;
  before: string;
  rest: string;
  quote?: { open: number; close: number };
}

function ruleMatches(text: string, near: (start: number, end: number) => boolean): Candidate[] {
  const found: Candidate[] = [];
  for (const rule of injectionRules) {
    if (rule.when !== undefined && !rule.when.test(text)) continue;
    rule.pattern.lastIndex = 0;
    for (const match of text.matchAll(rule.pattern)) {
      const leading = match[0].length - match[0].trimStart().length;
      const start = match.index + leading;
      const end = match.index + match[0].length;
      const before = text.slice(Math.max(0, start - 60), start);
      if (rule.negatable && negation.test(before)) continue;
      const weight = typeof rule.weight === 'number' ? rule.weight : rule.weight(match[0]);
      found.push({
        rule: rule.name,
        start,
        end,
        text: text.slice(start, end),
        weight,
        from: start,
        before,
        ...(near(start, end) ? quoted(text, start, end) : { rest: '' }),
      });
    }
  }
  return found;
}

/** "The assistant must never send money ...": a rule that keeps a risky action from the reader, not an order to it. */
const safetyRule =
  /\b(?:must|should|shall|will|may|can|does|do)\s*(?:never|not|n't)\s+(?:\w+\s+){0,2}?(?:send|share|transfer|pay|move|wire|delete|run|execute|buy|approve|spend|give|reveal|disclose)\b|^\s*(?:\w+\s+){0,3}never\s+(?:send|share|transfer|pay|move|wire|delete|buy|approve|give)\b/i;

/** What may stand before a reader that is being addressed: "Hey", "Note to the", "Quick disclaimer for"... */
const addressWords =
  /^(?:(?:hey|hi|hello|dear|ok|okay|a|to|for|attention|attn|note|nota|bene|quick|important|urgent|disclaimer|reminder|message|notice|p\.?s\.?|any|all|the|every|whatever|whichever|automated|[(\[/*#-]+)\s*)*(?:[\w-]+)?$/i;

/** Scores each sentence by how many signs of an order to an automated reader it carries (see readerFeatures). */
function readerDirectives(text: string, near: (start: number, end: number) => boolean): Candidate[] {
  const found: Candidate[] = [];
  for (const sentence of text.matchAll(/[^.!?;\n]+[.!?;]?/g)) {
    const words = sentence[0];
    const reader = readerFeatures.reader.exec(words);
    if (reader === null || !readerFeatures.directive.test(words) || safetyRule.test(words)) continue;
    let weight = 0.25;
    if (readerFeatures.deixis.test(words)) weight += 0.25;
    if (readerFeatures.user.test(words)) weight += 0.2;
    if (readerFeatures.action.test(words)) weight += 0.2;
    if (readerFeatures.deceit.test(words)) weight += 0.2;
    // Addressed: the reader named near the start of the sentence and followed by a colon, dash or comma.
    const before = words.slice(0, reader.index).trim();
    if (addressWords.test(before) && /^(?:\s+[\w-]+){0,2}\s*[:—–,]/.test(words.slice(reader.index + reader[0].length)))
      weight += 0.2;
    if (weight < 0.5) continue;
    const start = sentence.index + (words.length - words.trimStart().length);
    const end = sentence.index + words.trimEnd().length;
    const from = start + reader.index;
    found.push({
      rule: 'reader_directive',
      start,
      end,
      text: words.trim(),
      weight,
      from,
      before: text.slice(Math.max(0, start - 60), start),
      ...(near(from, end) ? quoted(text, from, sentence.index + words.length) : { rest: '' }),
    });
  }
  return found;
}

/** The match's line before it, the rest of its line after it, and the quote around it (opened before, closed after). */
function quoted(text: string, start: number, end: number): Pick<Candidate, 'rest' | 'quote'> {
  // Lines are read at most 300 characters each way: many matches on one long line stay linear.
  const window = Math.max(0, start - 300);
  const lineStart = window + text.slice(window, start).lastIndexOf('\n') + 1;
  const line = text.slice(lineStart, start);
  const ahead = text.slice(end, end + 300);
  const newline = ahead.indexOf('\n');
  const rest = newline === -1 ? ahead : ahead.slice(0, newline);
  const straight = (line.match(/["`]/g) ?? []).length;
  const curlyOpen = (line.match(/[“«]/g) ?? []).length;
  const curlyClose = (line.match(/[”»]/g) ?? []).length;
  const singleOpen = (line.match(/(?:^|[\s(\[:])['‘](?=\w|$)/g) ?? []).length;
  const singleClose = (line.match(/(?<=[\w.!?,])['’](?=[\s.,;:!?)\]]|$)/g) ?? []).length;
  const quote =
    straight % 2 === 1
      ? span(Math.max(line.lastIndexOf('"'), line.lastIndexOf('`')), rest.search(/["`]/))
      : curlyOpen > curlyClose
        ? span(Math.max(line.lastIndexOf('“'), line.lastIndexOf('«')), rest.search(/[”»]/))
        : singleOpen > singleClose
          ? span(lastIndexOfPattern(line, /(?:^|[\s(\[:])['‘](?=\w|$)/g), rest.search(/['’](?=[\s.,;:!?)\]-]|$)/))
          : undefined;
  return quote === undefined ? { rest } : { rest, quote: { open: lineStart + quote.open, close: end + quote.close } };
}

/**
 * Quoted on its line (opened before the match and closed after it) or introduced as an example ("phrases such as
 * ..."), in text that discusses attacks nearby, and not followed by an order to carry it out.
 */
function isMention(
  start: number,
  end: number,
  before: string,
  rest: string,
  quote: Candidate['quote'],
  context: MentionContext,
): boolean {
  // Words inside the match do not count: an order cannot excuse itself by saying "example". Checked first: it is cheap.
  if (!context.discussedNear(start - 300, start - 1) && !context.discussedNear(end, end + 300)) return false;
  if (quote === undefined && !mentionCue.test(before.slice(Math.max(0, before.length - 40)))) return false;
  // Words inside the quote are the quote's own: "ignore ...; security approved this" quoted is not an article about it.
  if (
    quote !== undefined &&
    !context.discussedNear(start - 300, quote.open - 1) &&
    !context.discussedNear(quote.close + 1, end + 300)
  )
    return false;
  const afterQuote = rest.replace(/^[^"`”»'’]*["`”»'’]/, '');
  return !quoteObeyed.test(afterQuote);
}

const maxMentionsPerRule = 16;

function span(open: number, close: number): { open: number; close: number } | undefined {
  return open === -1 || close === -1 ? undefined : { open, close };
}

function lastIndexOfPattern(text: string, pattern: RegExp): number {
  let last = -1;
  for (const match of text.matchAll(pattern)) last = match.index + match[0].length - 1;
  return last;
}

interface MentionContext {
  /** True when a word that discusses attacks lies between the two offsets. */
  discussedNear(from: number, to: number): boolean;
}

/**
 * Where the text discusses attacks, found in one pass, so each match asks in O(log n). A word inside `excluded` (a
 * payload and its quote) or part of an address (`x.example`, `/examples/`) is not discussion.
 */
function mentionContext(text: string, excluded: ReadonlyArray<readonly [number, number]>): MentionContext {
  const spans = [...excluded].sort((first, second) => first[0] - second[0]);
  const positions: number[] = [];
  let cursor = 0;
  let reach = -1;
  for (const word of text.matchAll(discussion)) {
    const at = word.index;
    while (cursor < spans.length && spans[cursor]![0] <= at) reach = Math.max(reach, spans[cursor++]![1]);
    if (at < reach) continue;
    const after = text.slice(at + word[0].length, at + word[0].length + 2);
    if (/[./@:_-]/.test(text[at - 1] ?? '') || /^(?:[./@][\w]|\/)/.test(after)) continue;
    positions.push(at);
  }
  return {
    discussedNear(from, to) {
      let low = 0;
      let high = positions.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (positions[middle]! < from) low = middle + 1;
        else high = middle;
      }
      return low < positions.length && positions[low]! <= to;
    },
  };
}
