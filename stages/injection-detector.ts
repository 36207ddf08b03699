// The default prompt-injection detector: rules by category, plus hidden markup, invisible characters and encoded payloads.
import { aiWords, imperativeWords, injectionRules, readerFeatures } from './injection-rules.js';

export interface DetectionMatch {
  rule: string;
  /** Offsets into the screened text (UTF-16 units). */
  start: number;
  end: number;
  text: string;
}

export interface Detection {
  detected: boolean;
  /** 0 to 1; the default detector reports detected at 0.5 and above. */
  score: number;
  matches: DetectionMatch[];
}

const threshold = 0.5;
/** A mention (quoted, or introduced as an example) counts a quarter: texts about attacks quote them. */
const mentionFactor = 0.25;
const negation = /\b(?:never|not|don'?t|doesn'?t|shouldn'?t|mustn'?t|cannot|can'?t|won'?t|avoid|refuse\s+to|no\s+one|nobody)\b[^.!?\n]{0,30}$/i;
const mentionCue = /(?:(?:such\s+as|like|e\.g\.|i\.e\.|for\s+(?:example|instance)|phrases?|strings?|sentences?|lines?|words?|called|known\s+as|patterns?|payloads?|attacks?|attempts?|examples?|classic|famous|notorious)\s*[:,]?\s*(?:the\s+|a\s+|an\s+)?["“'‘`«]?|(?:cause|get|make|trick|force|convince|manipulate|coax|lead|tries\s+to\s+get)s?\s+(?:the\s+|a\s+|an\s+)?\w+\s+(?:to|into)(?:\s+\w+ing)?)\s*$/i;
const invisible = /[\u200B-\u200D\u2060-\u2064\uFEFF\u00AD\u180E]|[\u{E0000}-\u{E007F}]/gu;
const tagCharacters = /(?:[\u{E0020}-\u{E007E}]){4,}/gu;
const htmlComment = /<!--([\s\S]*?)-->/g;
const hiddenStyle = String.raw`display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0+)?(?:px|pt|em|rem|%)?(?=[\s;"']|$)|opacity\s*:\s*0(?:\.0+)?(?=[\s;"']|$)|color\s*:\s*(?:white|#fff(?:fff)?|transparent)\b|(?:left|top|text-indent|margin-left)\s*:\s*-\d{3,}|(?:max-)?(?:height|width)\s*:\s*0(?:px)?(?=[\s;"']|$)`;
const hiddenElement = new RegExp(
  String.raw`<([a-z][a-z0-9]*)\b(?=[^>]*(?:\bstyle\s*=\s*["'][^"']*(?:${hiddenStyle})|\bhidden\b|aria-hidden\s*=\s*["']true|class\s*=\s*["'][^"']*\b(?:hidden|sr-only|visually-hidden|d-none)\b))[^>]*>([\s\S]*?)<\/\1\s*>`,
  'gi',
);
const encodedRuns: ReadonlyArray<{ pattern: RegExp; decode: (run: string) => string }> = [
  { pattern: /(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/_-]{4}){5,}(?:[A-Za-z0-9+/_-]{2}==|[A-Za-z0-9+/_-]{3}=)?(?![A-Za-z0-9+/=_-])/g, decode: (run) => Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8') },
  { pattern: /(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){12,}(?![0-9a-fA-F])/g, decode: (run) => Buffer.from(run, 'hex').toString('utf8') },
  { pattern: /(?:\\x[0-9a-fA-F]{2}){8,}|(?:0x[0-9a-fA-F]{2}[\s,]*){8,}/g, decode: (run) => Buffer.from(run.replace(/\\x|0x|[\s,]/g, ''), 'hex').toString('utf8') },
  { pattern: /(?:[A-Za-z0-9._~+-]*%[0-9A-Fa-f]{2}){6,}[A-Za-z0-9._~+-]*/g, decode: (run) => decodeUrl(run) },
];

/** Screens text with the built-in rules. Pure and synchronous; a few microseconds per kilobyte. */
export function detectInjection(text: string): Detection {
  return screen(text, 0);
}

function screen(text: string, depth: number): Detection {
  const { visible, positionOf } = withoutInvisible(text);
  const scored: Scored[] = [];
  for (const match of [...ruleMatches(visible), ...readerDirectives(visible)]) {
    const start = positionOf(match.start);
    const end = positionOf(match.end - 1) + 1;
    scored.push({ ...match, start, end, text: text.slice(start, end) });
    if (end - start !== match.end - match.start) scored.push({ rule: 'hidden_unicode', start, end, text: text.slice(start, end), weight: 0.5 });
  }
  for (const tagged of text.matchAll(tagCharacters)) {
    const decoded = [...tagged[0]].map((character) => String.fromCharCode(character.codePointAt(0)! - 0xe0000)).join('');
    const start = tagged.index;
    if (/[a-z]{2,}\s+[a-z]{2,}/i.test(decoded)) scored.push({ rule: 'hidden_unicode', start, end: start + tagged[0].length, text: decoded, weight: hiddenWeight(decoded, depth, 0.6) });
  }
  for (const region of [...text.matchAll(htmlComment)].map((found) => ({ found, inner: found[1] ?? '' }))
    .concat([...text.matchAll(hiddenElement)].map((found) => ({ found, inner: found[2] ?? '' })))) {
    const weight = hiddenWeight(region.inner.replace(/<[^>]+>/g, ' '), depth, 0);
    if (weight > 0) scored.push({ rule: 'hidden_markup', start: region.found.index, end: region.found.index + region.found[0].length, text: region.found[0], weight });
  }
  if (depth < 2) {
    for (const { pattern, decode } of encodedRuns) {
      for (const run of text.matchAll(pattern)) {
        const decoded = printable(decode(run[0]));
        if (decoded === undefined) continue;
        const weight = hiddenWeight(decoded, depth, 0);
        if (weight > 0) scored.push({ rule: 'encoded_payload', start: run.index, end: run.index + run[0].length, text: run[0], weight });
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
  const score = Math.min(1, [...best.values()].reduce((sum, weight) => sum + weight, strongestMention));
  const matches = scored.filter((match) => match.weight > 0).map(({ rule, start, end, text: matched }) => ({ rule, start, end, text: matched }));
  return { detected: score >= threshold, score: Math.round(score * 1000) / 1000, matches };
}

type Scored = DetectionMatch & { weight: number; mention?: boolean };

function ruleMatches(text: string): Scored[] {
  const found: Scored[] = [];
  for (const rule of injectionRules) {
    rule.pattern.lastIndex = 0;
    for (const match of text.matchAll(rule.pattern)) {
      const leading = match[0].length - match[0].trimStart().length;
      const start = match.index + leading;
      const end = match.index + match[0].length;
      const before = text.slice(Math.max(0, start - 60), start);
      if (rule.negatable && negation.test(before)) continue;
      const weight = typeof rule.weight === 'number' ? rule.weight : rule.weight(match[0]);
      const mention = isMention(text, start, before);
      found.push({ rule: rule.name, start, end, text: text.slice(start, end), weight: mention ? weight * mentionFactor : weight, mention });
    }
  }
  return found;
}

/** What may stand before a reader that is being addressed: "Hey", "Note to the", "Quick disclaimer for"... */
const addressWords = /^(?:(?:hey|hi|hello|dear|ok|okay|a|to|for|attention|attn|note|nota|bene|quick|important|urgent|disclaimer|reminder|message|notice|p\.?s\.?|any|all|the|every|whatever|whichever|automated|[(\[/*#-]+)\s*)*(?:[\w-]+)?$/i;

/** Scores each sentence by how many signs of an order to an automated reader it carries (see readerFeatures). */
function readerDirectives(text: string): Scored[] {
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
    if (addressWords.test(before) && /^(?:\s+[\w-]+){0,2}\s*[:—–,]/.test(words.slice(reader.index + reader[0].length))) weight += 0.2;
    if (weight < 0.5) continue;
    const start = sentence.index + (words.length - words.trimStart().length);
    const mention = isMention(text, start + reader.index, text.slice(Math.max(0, start - 60), start));
    found.push({ rule: 'reader_directive', start, end: sentence.index + words.trimEnd().length, text: words.trim(), weight: Math.min(1, mention ? weight * mentionFactor : weight), mention });
  }
  return found;
}

/** Quoted on its line, or introduced as an example ("phrases such as ..."). */
function isMention(text: string, start: number, before: string): boolean {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const line = text.slice(lineStart, start);
  const straight = (line.match(/["`]/g) ?? []).length;
  const curlyOpen = (line.match(/[“«]/g) ?? []).length;
  const curlyClose = (line.match(/[”»]/g) ?? []).length;
  const singleOpen = (line.match(/(?:^|[\s(\[:])['‘](?=\w|$)/g) ?? []).length;
  const singleClose = (line.match(/(?<=[\w.!?,])['’](?=[\s.,;:!?)\]]|$)/g) ?? []).length;
  if (straight % 2 === 1 || curlyOpen > curlyClose || singleOpen > singleClose) return true;
  return mentionCue.test(before.slice(Math.max(0, before.length - 40)));
}

/** Hidden or encoded text is suspicious when it carries any rule match or reads as an order to an AI. */
function hiddenWeight(hidden: string, depth: number, floor: number): number {
  const inner = screen(hidden, depth + 1);
  if (inner.score >= 0.25) return 1;
  // Text nobody is meant to see that speaks of an AI is written for one.
  if (aiWords.test(hidden)) return imperativeWords.test(hidden) ? 0.8 : 0.6;
  return floor;
}

/** The text without zero-width and tag characters, and a map from its offsets back to the original's. */
function withoutInvisible(text: string): { visible: string; positionOf: (index: number) => number } {
  invisible.lastIndex = 0;
  if (!invisible.test(text)) return { visible: text, positionOf: (index) => index };
  const kept: number[] = [];
  let visible = '';
  let offset = 0;
  for (const character of text) {
    if (!character.match(invisible)) {
      visible += character;
      for (let unit = 0; unit < character.length; unit++) kept.push(offset + unit);
    }
    offset += character.length;
  }
  return { visible, positionOf: (index) => kept[Math.min(index, kept.length - 1)] ?? index };
}

function printable(decoded: string): string | undefined {
  if (decoded.length < 8) return undefined;
  const readable = decoded.match(/[\x20-\x7E\n\r\t]/g)?.length ?? 0;
  return readable / decoded.length >= 0.9 && /[a-z]{3,}\s+[a-z]{2,}/i.test(decoded) ? decoded : undefined;
}

function decodeUrl(run: string): string {
  try {
    return decodeURIComponent(run.replace(/\+/g, ' '));
  } catch {
    return '';
  }
}
