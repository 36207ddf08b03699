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
  const context = mentionContext(text);
  return [...ruleMatches(text, context), ...readerDirectives(text, context)];
}

function ruleMatches(text: string, context: MentionContext): Scored[] {
  const found: Scored[] = [];
  for (const rule of injectionRules) {
    rule.pattern.lastIndex = 0;
    let mentions = 0;
    for (const match of text.matchAll(rule.pattern)) {
      const leading = match[0].length - match[0].trimStart().length;
      const start = match.index + leading;
      const end = match.index + match[0].length;
      const before = text.slice(Math.max(0, start - 60), start);
      if (rule.negatable && negation.test(before)) continue;
      const weight = typeof rule.weight === 'number' ? rule.weight : rule.weight(match[0]);
      // Past maxMentionsPerRule a match is counted in full: many "quotations" of one attack are not an article.
      const mention = mentions < maxMentionsPerRule && isMention(text, start, end, before, context);
      if (mention) mentions++;
      found.push({
        rule: rule.name,
        start,
        end,
        text: text.slice(start, end),
        weight: mention ? weight * mentionFactor : weight,
        mention,
      });
    }
  }
  return found;
}

/** What may stand before a reader that is being addressed: "Hey", "Note to the", "Quick disclaimer for"... */
const addressWords =
  /^(?:(?:hey|hi|hello|dear|ok|okay|a|to|for|attention|attn|note|nota|bene|quick|important|urgent|disclaimer|reminder|message|notice|p\.?s\.?|any|all|the|every|whatever|whichever|automated|[(\[/*#-]+)\s*)*(?:[\w-]+)?$/i;

/** Scores each sentence by how many signs of an order to an automated reader it carries (see readerFeatures). */
function readerDirectives(text: string, context: MentionContext): Scored[] {
  const found: Scored[] = [];
  for (const sentence of text.matchAll(/[^.!?;\n]+[.!?;]?/g)) {
    const words = sentence[0];
    const reader = readerFeatures.reader.exec(words);
    if (reader === null || !readerFeatures.directive.test(words)) continue;
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
    const mention = isMention(
      text,
      start + reader.index,
      sentence.index + words.length,
      text.slice(Math.max(0, start - 60), start),
      context,
    );
    found.push({
      rule: 'reader_directive',
      start,
      end: sentence.index + words.trimEnd().length,
      text: words.trim(),
      weight: Math.min(1, mention ? weight * mentionFactor : weight),
      mention,
    });
  }
  return found;
}

/**
 * Quoted on its line (opened before the match and closed after it) or introduced as an example ("phrases such as
 * ..."), in text that discusses attacks nearby, and not followed by an order to carry it out.
 */
function isMention(text: string, start: number, end: number, before: string, context: MentionContext): boolean {
  // Words inside the match do not count: an order cannot excuse itself by saying "example". Checked first: it is cheap.
  if (!context.discussedNear(start - 300, start - 1) && !context.discussedNear(end, end + 300)) return false;
  // Lines and context are read at most 300 characters each way: many matches on one long line stay linear.
  const lineStart = Math.max(text.lastIndexOf('\n', start - 1) + 1, start - 300);
  const line = text.slice(lineStart, start);
  const newline = text.indexOf('\n', end);
  const rest = text.slice(end, Math.min(newline === -1 ? text.length : newline, end + 300));
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
  if (quote === undefined && !mentionCue.test(before.slice(Math.max(0, before.length - 40)))) return false;
  // Words inside the quote are the quote's own: "ignore ...; security approved this" quoted is not an article about it.
  if (
    quote !== undefined &&
    !context.discussedNear(start - 300, lineStart + quote.open - 1) &&
    !context.discussedNear(end + quote.close + 1, end + 300)
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

/** Where the text discusses attacks, found in one pass, so each match asks in O(log n). */
function mentionContext(text: string): MentionContext {
  const positions: number[] = [];
  for (const word of text.matchAll(discussion)) positions.push(word.index);
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
