// Screening's normal form: the text the rules read, with wrappers and disguises undone, and a map back to the original's offsets.
import { withLatinLookalikes } from './injection-lookalikes.js';

/** Zero-width, soft hyphen, word joiners, BOM, Mongolian vowel separator, direction controls and Unicode tag characters. */
const invisible = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u00AD\u180E]|[\u{E0000}-\u{E007F}]/u;
const directionControls = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
/** Inline formatting tags that can split a word ("<b>Ign</b>ore") without changing what it says. */
const inlineTag =
  /^<\/?(?:b|i|u|s|em|strong|span|mark|small|big|sup|sub|font|a|abbr|cite|code|del|ins|kbd|q|samp|tt|var|wbr)(?:\s[^<>]{0,200})?\/?>/i;
const namedEntities: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
};

export interface NormalizedText {
  /** What the rules read. */
  text: string;
  /** Where the character at `index` of the normal form starts in the original text. */
  startOf(index: number): number;
  /** Where a span of the normal form ending (exclusive) at `index` ends in the original text. */
  endOf(index: number): number;
}

/**
 * Undoes what hides a payload from word rules, in one forward pass with bounded look-ahead (so linear): invisible
 * characters are dropped; HTML entities, JSON `\uXXXX` escapes and compatibility forms (fullwidth, mathematical
 * letters, ligatures) are decoded; inline HTML tags and markdown emphasis (`**`, `__`, `~~`, a word in backticks) are
 * removed; look-alike letters inside Latin words become Latin. Quotes are kept: whether a match is quoted is decided
 * by the detector, which no longer lets a quote lower an order's score.
 */
export function normalizeForScreening(source: string): NormalizedText {
  if (!needsWork(source)) return { text: source, startOf: (index) => index, endOf: (index) => index };
  const map = new OffsetMap();
  const compatible = source.normalize('NFKC') !== source;
  let copyFrom = 0;
  let index = 0;
  const replace = (piece: string, until: number) => {
    map.copy(source, copyFrom, index);
    map.replaced(piece, index, until);
    index = until;
    copyFrom = until;
  };
  while (index < source.length) {
    // A list or quote marker at a line's start ("- ", "2. ", "> ") is layout: rules anchored at a line's start read past it.
    if (index === 0 || source.charCodeAt(index - 1) === 0x0a) {
      const marker = listMarker.exec(source.slice(index, index + 12));
      if (marker !== null) {
        replace('', index + marker[0].length);
        continue;
      }
    }
    const code = source.charCodeAt(index);
    if (code < 0x7f && !special[code]) {
      index++;
      continue;
    }
    const next = source[index + 1];
    if (code === 0x26) {
      const entity = /^&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,6}));/i.exec(source.slice(index, index + 12));
      const decoded =
        entity === null
          ? undefined
          : entity[1] !== undefined
            ? fromCode(Number(entity[1]))
            : entity[2] !== undefined
              ? fromCode(Number.parseInt(entity[2], 16))
              : namedEntities[entity[3]!.toLowerCase()];
      if (entity !== null && decoded !== undefined) {
        replace(invisible.test(decoded) ? '' : decoded, index + entity[0].length);
        continue;
      }
    } else if (code === 0x5c && next === 'u') {
      const escape = /^\\u([0-9a-fA-F]{4})/.exec(source.slice(index, index + 6));
      const decoded = escape === null ? undefined : fromCode(Number.parseInt(escape[1]!, 16));
      if (decoded !== undefined) {
        replace(invisible.test(decoded) ? '' : decoded, index + 6);
        continue;
      }
    } else if (code === 0x3c) {
      const tag = inlineTag.exec(source.slice(index, index + 240));
      if (tag !== null) {
        replace('', index + tag[0].length);
        continue;
      }
    } else if (code === 0x2a || code === 0x7e || (code === 0x5f && !(isWord(source[index - 1]) && isWord(next)))) {
      // Emphasis marks: `**`, `~~`, `__`, and a single `*` or `_` at a word's edge ("_all_"); snake_case keeps its `_`.
      replace('', index + 1);
      continue;
    } else if (code === 0x60) {
      const close = source.indexOf('`', index + 1);
      if (close > index + 1 && close - index <= 41 && !/[\s`]/.test(source.slice(index + 1, close))) {
        replace('', index + 1);
        index = close;
        replace('', close + 1);
        continue;
      }
    } else if (code === 0x202e) {
      // A right-to-left override shows what follows it reversed, up to its pop or the line's end: read it as shown.
      let end = index + 1;
      while (end < source.length && !'\u202c\u2069\n'.includes(source[end]!)) end++;
      const shown = [...source.slice(index + 1, end).replace(directionControls, '')].reverse().join('');
      replace(shown, end < source.length && source[end] !== '\n' ? end + 1 : end);
      continue;
    } else if (code > 0x7f) {
      if (isInvisible(source.codePointAt(index)!)) {
        replace('', index + (code >= 0xd800 && code <= 0xdbff ? 2 : 1));
        continue;
      }
      // A run of compatibility forms (a fullwidth word) is decoded as one piece: one map entry per run, not per letter.
      let end = index;
      while (
        compatible &&
        end < source.length &&
        source.charCodeAt(end) > 0x7f &&
        !isInvisible(source.codePointAt(end)!)
      ) {
        // Fullwidth ASCII always decodes: no normalize call for it.
        if (source.charCodeAt(end) >= 0xff01 && source.charCodeAt(end) <= 0xff5e) {
          end++;
          continue;
        }
        const width = source.charCodeAt(end) >= 0xd800 && source.charCodeAt(end) <= 0xdbff ? 2 : 1;
        const character = source.slice(end, end + width);
        const form = character.normalize('NFKC');
        if (form === character || /[\u0300-\u036f]/.test(form)) break;
        end += width;
      }
      if (end > index) {
        replace(source.slice(index, end).normalize('NFKC'), end);
        continue;
      }
      index += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
      continue;
    }
    index++;
  }
  map.copy(source, copyFrom, source.length);
  return map.finish();
}

/** The characters handled above, by code below 0x7f. */
const special = (() => {
  const flags = new Array<boolean>(128).fill(false);
  for (const character of '&\\<*~_`') flags[character.charCodeAt(0)] = true;
  return flags;
})();

/** The normal form as pieces: runs copied from the source (offsets by arithmetic) and replacements (one source span each). */
class OffsetMap {
  private readonly pieces: string[] = [];
  private readonly outStarts: number[] = [];
  private readonly sourceStarts: number[] = [];
  /** -1 for a copied run; else where the replaced source span ends. */
  private readonly sourceEnds: number[] = [];
  private length = 0;

  copy(source: string, from: number, to: number): void {
    if (to > from) this.push(source.slice(from, to), from, -1);
  }

  replaced(piece: string, from: number, to: number): void {
    if (piece !== '') this.push(piece, from, to);
  }

  private push(piece: string, from: number, end: number): void {
    this.pieces.push(piece);
    this.outStarts.push(this.length);
    this.sourceStarts.push(from);
    this.sourceEnds.push(end);
    this.length += piece.length;
  }

  finish(): NormalizedText {
    const text = withLatinLookalikes(this.pieces.join(''));
    const find = (at: number) => {
      let low = 0;
      let high = this.outStarts.length - 1;
      while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (this.outStarts[middle]! <= at) low = middle;
        else high = middle - 1;
      }
      return low;
    };
    const startOf = (at: number) => {
      if (this.outStarts.length === 0) return at;
      const piece = find(Math.min(at, this.length - 1));
      return this.sourceEnds[piece]! === -1
        ? this.sourceStarts[piece]! + (Math.min(at, this.length - 1) - this.outStarts[piece]!)
        : this.sourceStarts[piece]!;
    };
    const endOf = (at: number) => {
      if (this.outStarts.length === 0 || at <= 0) return at;
      const last = Math.min(at, this.length) - 1;
      const piece = find(last);
      return this.sourceEnds[piece]! === -1
        ? this.sourceStarts[piece]! + (last - this.outStarts[piece]!) + 1
        : this.sourceEnds[piece]!;
    };
    return { text, startOf, endOf };
  }
}

/** Most texts are plain ASCII prose without entities, escapes, tags or emphasis: they skip the pass. */
function needsWork(text: string): boolean {
  return /[^\x00-\x7f]|&[#a-z]|\\u|<\/?[a-z]|[*_~`]|(?:^|\n)[ \t]*(?:[-+>]|\d{1,3}[.)])[ \t]/i.test(text);
}

const listMarker = /^[ \t]*(?:[-+•>]|\d{1,3}[.)])[ \t]+/;

/** The characters of `invisible`, by code point, without a regular expression per character. */
function isInvisible(code: number): boolean {
  return (
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    (code >= 0x2060 && code <= 0x2064) ||
    code === 0xfeff ||
    code === 0xad ||
    code === 0x180e ||
    (code >= 0xe0000 && code <= 0xe007f)
  );
}

function isWord(character: string | undefined): boolean {
  return character !== undefined && /[\p{L}\p{N}]/u.test(character);
}

function fromCode(code: number): string | undefined {
  return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : undefined;
}
