// Other readings of a text, a helper of injection-detector.ts: the same text reversed, with leetspeak and letter
// spacing undone, decoded from ROT13, and the link titles and alt texts a page carries. Each is screened only when the
// text shows a sign of it (a cheap test), and its matches are mapped back onto the text for redaction.
import { normalizeForScreening, type NormalizedText } from './injection-normalize.js';
import { visibleMatches, type Scored } from './injection-scoring.js';

/** A reading of the text and how a span of it maps back to the screened text. */
interface View {
  text: string;
  span(start: number, end: number): [number, number];
}

/** Common words of a payload, written backwards: two of them mean the text may be reversed. */
const reversedWords =
  /\b(?:erongi|dragersid|tegrof|snoitcurtsni|tpmorp|metsys|drowssap|terces|laever|tnatsissa|selur|senilediug|suoiverp|dnes|liame|eht|ruoy|uoy|dna|lla)\b/gi;
/** A word, for the leetspeak test: one mixing letters with the digits and signs leetspeak puts for letters ("1gn0r3"). */
const wordOrSigns = /[\w@$!|]{2,}/g;
const leetLetters: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '8': 'b',
  '9': 'g',
  '@': 'a',
  $: 's',
  '!': 'i',
  '|': 'l',
};
/**
 * Letters spaced out ("i g n o r e", "I-g-n-o-r-e"), words cut by a dot ("Ign.ore") or by syllables ("in-struc-tions").
 * Latin letters only, without the `u` flag: these tests run on every text, and `\p{L}` makes them several times slower.
 */
const spacedLetters = /(?:^|[^A-Za-z])[A-Za-z](?:[ .\-_*][A-Za-z]){3,}(?![A-Za-z])/;
const dottedWords = /(?<![\w./@:-])[A-Za-z]{1,8}\.[A-Za-z]{1,8}(?![\w./@-])/g;
const syllables = /[A-Za-z]{1,5}-[A-Za-z]{1,5}-[A-Za-z]{1,5}/g;
/** A letter next to a digit or sign that leetspeak puts for one: without it, no word need be read as leetspeak. */
const leetSign = /[a-z][0134579@$!|]|[0134579@$!|][a-z]/i;

/** Matches found in the other readings of `source`, whose normal form is `normal`, with offsets into `source`. */
export function viewMatches(source: string, normal: NormalizedText): Scored[] {
  const found: Scored[] = [];
  const add = (view: View, toSource: (start: number, end: number) => [number, number]) => {
    for (const match of visibleMatches(view.text)) {
      const [viewStart, viewEnd] = view.span(match.start, match.end);
      const [start, end] = toSource(viewStart, viewEnd);
      found.push({ ...match, start, end, text: source.slice(start, end) });
    }
  };
  const fromNormal = (start: number, end: number): [number, number] => [normal.startOf(start), normal.endOf(end)];
  const text = normal.text;
  if ((text.match(reversedWords)?.length ?? 0) >= 2) add(reversed(text), fromNormal);
  const leet = leetSign.test(text) ? leetWords(text) : 0;
  if (
    leet >= 2 ||
    spacedLetters.test(text) ||
    (text.match(dottedWords)?.length ?? 0) >= 2 ||
    (text.match(syllables)?.length ?? 0) >= 2
  ) {
    add(deobfuscated(text, 'i'), fromNormal);
    // "1" stands for "i" ("1gnore") or "l" ("a11", "ru1es"): both readings, when there is a "1" to read.
    if (leet >= 2 && /[a-z]1|1[a-z]/i.test(text)) add(deobfuscated(text, 'l'), fromNormal);
  }
  if (/\brot-?13\b/i.test(text)) add(rot13(text), fromNormal);
  // All labels in one text, a line each: one screening however many links a page has.
  const pieces = labels(source);
  if (pieces.length > 0) {
    const starts: number[] = [];
    let length = 0;
    for (const piece of pieces) {
      starts.push(length);
      length += piece.text.length + 1;
    }
    const inner = normalizeForScreening(pieces.map((piece) => piece.text).join('\n'));
    const toSource = (at: number) => {
      let low = 0;
      let high = starts.length - 1;
      while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (starts[middle]! <= at) low = middle;
        else high = middle - 1;
      }
      return pieces[low]!.at + Math.min(at - starts[low]!, pieces[low]!.text.length);
    };
    add({ text: inner.text, span: (start, end) => [inner.startOf(start), inner.endOf(end)] }, (start, end) => [
      toSource(start),
      Math.max(toSource(start), toSource(end - 1) + 1),
    ]);
  }
  return found;
}

function reversed(text: string): View {
  const length = text.length;
  // Code units reversed keep offsets exact; surrogate pairs are put back in order.
  const text2 = text
    .split('')
    .reverse()
    .join('')
    .replace(/([\uDC00-\uDFFF])([\uD800-\uDBFF])/g, '$2$1');
  return { text: text2, span: (start, end) => [length - end, length - start] };
}

/** Two letters or more, and a sign for a letter at the word's start or after a letter: "1gn0r3", "4ll", not "E4012". */
function isLeet(word: string): boolean {
  // A long run (base64, a hash) is no word: leetspeak writes words.
  if (word.length > 20) return false;
  return /[a-z][^a-z]*[a-z]/i.test(word) && /(?:^|[a-z])[0134579@$!|]+[a-z]/i.test(word);
}

function leetWords(text: string): number {
  let count = 0;
  for (const word of text.matchAll(wordOrSigns)) {
    // A word stands between spaces or punctuation; a piece of base64 between "+" and "/" does not.
    const before = text[word.index - 1] ?? ' ';
    const after = text[word.index + word[0].length] ?? ' ';
    if (/[\s("']/.test(before) && /[\s.,;:?)"']/.test(after) && isLeet(word[0])) count++;
  }
  return count;
}

/** Leetspeak letters read as letters, spaced letters and cut words joined: each output character remembers its source. */
function deobfuscated(text: string, one: 'i' | 'l'): View {
  const leet = text.replace(wordOrSigns, (word, offset: number) =>
    !isLeet(word)
      ? word
      : [...word]
          .map((character, index) =>
            // An e-mail address's "@" stays ("a@evil.example" is not "aaevil"), and so does a "!" ending a word.
            (character === '@' && text[offset + word.length] === '.') ||
            (character === '!' && !/[a-z]/i.test(word[index + 1] ?? ''))
              ? character
              : character === '1'
                ? one
                : (leetLetters[character] ?? character),
          )
          .join(''),
  );
  const origins: number[] = [];
  let out = '';
  for (let index = 0; index < leet.length; index++) {
    const character = leet[index]!;
    const previous = leet[index - 1] ?? '';
    const next = leet[index + 1] ?? '';
    const letters = isLetter(previous) && isLetter(next);
    // A single separator between two letters goes; two or more spaces are where the words of spaced text end.
    if (letters && /[.\-·_*]/.test(character)) continue;
    if (character === ' ' && letters && isSpaced(leet, index)) continue;
    if (character === ' ' && previous === ' ') continue;
    out += character;
    origins.push(index);
  }
  return {
    text: out,
    span: (start, end) => [origins[start] ?? text.length, (origins[Math.max(start, end - 1)] ?? text.length - 1) + 1],
  };
}

/** A space inside "i g n o r e": single letters on both sides. */
function isSpaced(text: string, index: number): boolean {
  const before = text[index - 2];
  const after = text[index + 2];
  return !isLetter(before ?? '') && !isLetter(after ?? '');
}

function isLetter(character: string): boolean {
  const code = character.charCodeAt(0);
  if (code < 0x80) return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  return /\p{L}/u.test(character);
}

function rot13(text: string): View {
  return {
    text: text.replace(/[a-z]/gi, (letter) => {
      const base = letter <= 'Z' ? 65 : 97;
      return String.fromCharCode(((letter.charCodeAt(0) - base + 13) % 26) + base);
    }),
    span: (start, end) => [start, end],
  };
}

/** Titles and alt texts of HTML tags and markdown links and images: text a page carries that the reader may not see. */
const labelPatterns: readonly RegExp[] = [
  /\b(?:title|alt|aria-label|placeholder)\s*=\s*(?:"([^"<>]{1,2000})"|'([^'<>]{1,2000})')/gi,
  /\]\(\s*<?[^\s()<>]{0,2000}>?\s+(?:"([^"\n]{1,2000})"|'([^'\n]{1,2000})'|\(([^()\n]{1,2000})\))\s*\)/g,
  /^ {0,3}\[[^\]\n]{1,200}\]:[ \t]*<?\S{1,2000}?>?[ \t]+(?:"([^"\n]{1,2000})"|'([^'\n]{1,2000})'|\(([^()\n]{1,2000})\))[ \t]*$/gm,
  /!\[([^\]\n]{1,2000})\]\(/g,
];

function labels(source: string): Array<{ at: number; text: string }> {
  if (!/[=\]]/.test(source)) return [];
  const found: Array<{ at: number; text: string }> = [];
  for (const pattern of labelPatterns) {
    for (const match of source.matchAll(pattern)) {
      const group = match.slice(1).findIndex((value) => value !== undefined);
      if (group === -1) continue;
      const value = match[group + 1]!;
      found.push({ at: match.index + match[0].indexOf(value), text: value });
    }
  }
  return found;
}
