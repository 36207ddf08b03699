// The default prompt-injection detector: rules by category, plus hidden markup, invisible characters and encoded payloads.
import { aiWords, imperativeWords, injectionRules, readerFeatures } from './injection-rules.js';
import { normalizeForScreening } from './injection-normalize.js';

export interface DetectionMatch {
  rule: string;
  /** Offsets into the screened text (UTF-16 units). */
  start: number;
  end: number;
  text: string;
}

export interface Detection {
  detected: boolean;
  /** Characters past maxScreenedChars that were not screened (absent when the whole text was). */
  unscreened?: number;
  /** 0 to 1; the default detector reports detected at 0.5 and above. */
  score: number;
  matches: DetectionMatch[];
  /** A model judge's verdict, when one was asked (judgedDetector). */
  judged?: { score: number; reason: string };
  /** Why the detection is less than the detector meant (a judge that could not answer); the guard reports it. */
  warning?: string;
}

const threshold = 0.5;
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
const invisible = /[\u200B-\u200D\u2060-\u2064\uFEFF\u00AD\u180E]|[\u{E0000}-\u{E007F}]/gu;
/** Look-alike letters (Cyrillic, Greek, IPA) or compatibility forms (fullwidth, mathematical letters) in a match. */
const disguised = /[\u0370-\u04ff\u0250-\u02af\uff01-\uff5e]|[\u{1d400}-\u{1d7ff}]/u;
const tagCharacters = /(?:[\u{E0020}-\u{E007E}]){4,}/gu;
/** Every pattern below is bounded or anchored so that screening stays linear in the text's length. */
const maxHiddenChars = 4_000;
/** Screening stops here: longer text is screened up to this many characters (Detection.unscreened says how many were not). */
export const maxScreenedChars = 100_000;
/** What is decoded from encoded runs per screening, in characters: a payload is short, a data URL need not be decoded whole. */
const maxDecodedChars = 16_000;
const hiddenStyle = String.raw`display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0+)?(?:px|pt|em|rem|%)?(?=[\s;"']|$)|opacity\s*:\s*0(?:\.0+)?(?=[\s;"']|$)|color\s*:\s*(?:white|#fff(?:fff)?|transparent)\b|(?:left|top|text-indent|margin-left)\s*:\s*-\d{3,}|(?:max-)?(?:height|width)\s*:\s*0(?:px)?(?=[\s;"']|$)`;
const hiddenOpening = new RegExp(
  String.raw`<([a-z][a-z0-9]{0,15})\b(?=[^>]{0,400}?(?:\bstyle\s*=\s*["'][^"']{0,400}?(?:${hiddenStyle})|\bhidden\b|aria-hidden\s*=\s*["']true|class\s*=\s*["'][^"']{0,400}?\b(?:hidden|sr-only|visually-hidden|d-none)\b))[^>]{0,400}>`,
  'gi',
);
const encodedRuns: ReadonlyArray<{ pattern: RegExp; decode: (run: string) => string }> = [
  {
    pattern:
      /(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/_-]{4}){5,}(?:[A-Za-z0-9+/_-]{2}==|[A-Za-z0-9+/_-]{3}=)?(?![A-Za-z0-9+/=_-])/g,
    decode: (run) => Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'),
  },
  {
    pattern: /(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){12,}(?![0-9a-fA-F])/g,
    decode: (run) => Buffer.from(run, 'hex').toString('utf8'),
  },
  {
    pattern: /(?:\\x[0-9a-fA-F]{2}){8,}|(?:0x[0-9a-fA-F]{2}[\s,]*){8,}/g,
    decode: (run) => Buffer.from(run.replace(/\\x|0x|[\s,]/g, ''), 'hex').toString('utf8'),
  },
  // Bounded gaps between escapes: an unbounded `[...]*%` backtracks over every long run of letters (quadratic).
  {
    pattern:
      /(?<![A-Za-z0-9._~+%-])[A-Za-z0-9._~+-]{0,32}%[0-9A-Fa-f]{2}(?:[A-Za-z0-9._~+-]{0,32}%[0-9A-Fa-f]{2}){5,}[A-Za-z0-9._~+-]{0,32}/g,
    decode: (run) => decodeUrl(run),
  },
];

/** Screens text with the built-in rules. Pure and synchronous; a few microseconds per kilobyte. */
export function detectInjection(text: string): Detection {
  if (text.length <= maxScreenedChars) return screen(text, 0, { decodable: maxDecodedChars, hidden: maxScreenedChars });
  const detection = screen(text.slice(0, maxScreenedChars), 0, {
    decodable: maxDecodedChars,
    hidden: maxScreenedChars,
  });
  detection.unscreened = text.length - maxScreenedChars;
  return detection;
}

/** What one screening (with its nested screens of hidden and decoded text) may still decode. */
interface Budget {
  decodable: number;
  /** Characters of hidden text (comments, hidden elements, tag characters) still to be screened again inside. */
  hidden: number;
}

function screen(text: string, depth: number, budget: Budget): Detection {
  const normal = normalizeForScreening(text);
  const visible = normal.text;
  const scored: Scored[] = [];
  const context = mentionContext(visible);
  for (const match of [...ruleMatches(visible, context), ...readerDirectives(visible, context)]) {
    const start = normal.startOf(match.start);
    const end = normal.endOf(match.end);
    const original = text.slice(start, end);
    scored.push({ ...match, start, end, text: original });
    // Formatting inside a match is common; invisible characters or look-alike letters inside one are a disguise.
    if (invisible.test(original) || disguised.test(original))
      scored.push({ rule: 'hidden_unicode', start, end, text: original, weight: 0.5 });
    invisible.lastIndex = 0;
  }
  for (const tagged of text.matchAll(tagCharacters)) {
    const decoded = [...tagged[0]]
      .map((character) => String.fromCharCode(character.codePointAt(0)! - 0xe0000))
      .join('');
    const start = tagged.index;
    if (/[a-z]{2}\s+[a-z]{2}/i.test(decoded))
      scored.push({
        rule: 'hidden_unicode',
        start,
        end: start + tagged[0].length,
        text: decoded,
        weight: hiddenWeight(decoded, depth, 0.6, budget),
      });
  }
  const regions = htmlComments(text).concat(hiddenElements(text));
  for (const region of regions) {
    const weight = hiddenWeight(region.inner.replace(/<[^<>]{0,400}>/g, ' '), depth, 0, budget);
    if (weight > 0)
      scored.push({
        rule: 'hidden_markup',
        start: region.start,
        end: region.start + region.whole.length,
        text: region.whole,
        weight,
      });
  }
  if (depth < 2) {
    for (const { pattern, decode } of encodedRuns) {
      for (const run of text.matchAll(pattern)) {
        if (budget.decodable <= 0) break;
        // A payload sits near the start of its run; decode a bounded, aligned prefix (base64 in fours, hex in pairs).
        const piece = run[0].slice(0, Math.min(budget.decodable, 4_096));
        budget.decodable -= piece.length;
        const decoded = printable(decode(piece));
        if (decoded === undefined) continue;
        const weight = hiddenWeight(decoded, depth, 0, budget);
        if (weight > 0)
          scored.push({
            rule: 'encoded_payload',
            start: run.index,
            end: run.index + run[0].length,
            text: run[0],
            weight,
          });
      }
    }
  }
  // Distinct rules add up; mentions do not (an article quoting three attacks is still an article).
  const best = new Map<string, number>();
  let strongestMention = 0;
  for (const match of scored) {
    if (match.mention) strongestMention = Math.max(strongestMention, match.weight);
    else best.set(match.rule, Math.max(best.get(match.rule) ?? 0, match.weight));
  }
  const score = Math.min(
    1,
    [...best.values()].reduce((sum, weight) => sum + weight, strongestMention),
  );
  const matches = scored
    .filter((match) => match.weight > 0)
    .map(({ rule, start, end, text: matched }) => ({ rule, start, end, text: matched }));
  return { detected: score >= threshold, score: Math.round(score * 1000) / 1000, matches };
}

type Scored = DetectionMatch & { weight: number; mention?: boolean };

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

/** Hidden or encoded text is suspicious when it carries any rule match or reads as an order to an AI. */
function hiddenWeight(hidden: string, depth: number, floor: number, budget: Budget): number {
  // Nested regions overlap (a hundred unclosed openings before one close); screening them all again would be quadratic.
  if (budget.hidden < hidden.length) return aiWords.test(hidden.slice(0, 2_000)) ? 0.6 : floor;
  budget.hidden -= hidden.length;
  const inner = screen(hidden, depth + 1, budget);
  if (inner.score >= 0.25) return 1;
  // Text nobody is meant to see that speaks of an AI is written for one.
  if (aiWords.test(hidden)) return imperativeWords.test(hidden) ? 0.8 : 0.6;
  return floor;
}

function printable(decoded: string): string | undefined {
  if (decoded.length < 8) return undefined;
  const readable = decoded.match(/[\x20-\x7E\n\r\t]/g)?.length ?? 0;
  // `[a-z]{3}` rather than `[a-z]{3,}`: the same test, without backtracking over a long run of letters.
  return readable / decoded.length >= 0.9 && /[a-z]{3}\s+[a-z]{2}/i.test(decoded) ? decoded : undefined;
}

/** Elements styled or marked hidden: each opening's first closing tag of the same name, found once per name and reused. */
function hiddenElements(text: string): Array<{ start: number; whole: string; inner: string }> {
  const found: Array<{ start: number; whole: string; inner: string }> = [];
  const nextClose = new Map<string, { at: number; length: number }>();
  for (const opening of text.matchAll(hiddenOpening)) {
    const name = opening[1]!.toLowerCase();
    const bodyStart = opening.index + opening[0].length;
    let close = nextClose.get(name);
    if (close === undefined || (close.at !== -1 && close.at < bodyStart)) {
      const pattern = new RegExp(String.raw`<\/${name}\s*>`, 'gi');
      pattern.lastIndex = bodyStart;
      const match = pattern.exec(text);
      close = match === null ? { at: -1, length: 0 } : { at: match.index, length: match[0].length };
      nextClose.set(name, close);
    }
    if (close.at === -1 || close.at - bodyStart > maxHiddenChars) continue;
    found.push({
      start: opening.index,
      whole: text.slice(opening.index, close.at + close.length),
      inner: text.slice(bodyStart, close.at),
    });
  }
  return found;
}

/** HTML comments by a linear scan: a lazy `<!--[\s\S]*?-->` rescans the rest of the text from every unclosed `<!--`. */
function htmlComments(text: string): Array<{ start: number; whole: string; inner: string }> {
  const found: Array<{ start: number; whole: string; inner: string }> = [];
  for (let start = text.indexOf('<!--'); start !== -1; start = text.indexOf('<!--', start + 4)) {
    const end = text.indexOf('-->', start + 4);
    // No close after this opening means none after any later one either.
    if (end === -1) break;
    found.push({ start, whole: text.slice(start, end + 3), inner: text.slice(start + 4, end) });
    start = end - 1;
  }
  return found;
}

function decodeUrl(run: string): string {
  try {
    return decodeURIComponent(run.replace(/\+/g, ' '));
  } catch {
    return '';
  }
}
