// The default prompt-injection detector: rules by category, plus hidden markup, invisible characters and encoded payloads.
import { aiWords, imperativeWords } from './injection-words.js';
import { visibleMatches, type Scored } from './injection-scoring.js';
import { normalizeForScreening } from './injection-normalize.js';
import { viewMatches } from './injection-views.js';

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
const invisible = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD\u180E]|[\u{E0000}-\u{E007F}]/gu;
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
  const readable = visibleMatches(visible).map((match) => {
    const start = normal.startOf(match.start);
    const end = normal.endOf(match.end);
    return { ...match, start, end, text: text.slice(start, end) };
  });
  for (const match of readable.concat(viewMatches(text, normal))) {
    scored.push(match);
    // Formatting inside a match is common; invisible characters or look-alike letters inside one are a disguise.
    if (invisible.test(match.text) || disguised.test(match.text))
      scored.push({ rule: 'hidden_unicode', start: match.start, end: match.end, text: match.text, weight: 0.5 });
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
