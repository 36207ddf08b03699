// A turn's tool results read together, a helper of injection-guard.ts: a payload split across two results ("ignore all
// previous" | "instructions and ...") is whole again in the joined text, and each match is traced back to its results.
import { detectInjection, type Detection, type DetectionMatch } from './injection-detector.js';

/** The parts joined into one text, and where each part starts in it. */
export interface JoinedReading {
  text: string;
  starts: readonly number[];
}

/** The parts joined by a space; when a part ends and the next begins inside a word, also joined by nothing. */
export function joinedReadings(parts: readonly string[]): JoinedReading[] {
  const readings = [join(parts, ' ')];
  const cutWord = parts.some((part, index) => index > 0 && /\p{L}$/u.test(parts[index - 1]!) && /^\p{L}/u.test(part));
  if (cutWord) readings.push(join(parts, ''));
  return readings;
}

function join(parts: readonly string[], between: string): JoinedReading {
  const starts: number[] = [];
  let length = 0;
  for (const part of parts) {
    starts.push(length);
    length += part.length + between.length;
  }
  return { text: parts.join(between), starts };
}

/** Each part's share of the matches, with offsets into that part (a match across a join is cut at it). */
export function matchesByPart(
  reading: JoinedReading,
  parts: readonly string[],
  matches: readonly DetectionMatch[],
): DetectionMatch[][] {
  return parts.map((part, index) => {
    const from = reading.starts[index]!;
    const to = from + part.length;
    return matches
      .filter((match) => match.start < to && match.end > from)
      .map((match) => {
        const start = Math.max(match.start, from) - from;
        const end = Math.min(match.end, to) - from;
        return { ...match, start, end, text: part.slice(start, end) };
      });
  });
}

/** The default detector over texts that arrive together: each one alone, then all of them joined. */
export function detectTogether(parts: readonly string[]): Detection {
  let strongest: Detection = { detected: false, score: 0, matches: [] };
  for (const text of [...parts, ...joinedReadings(parts).map((reading) => reading.text)]) {
    const detection = detectInjection(text);
    if (detection.score > strongest.score) strongest = detection;
  }
  return strongest;
}
