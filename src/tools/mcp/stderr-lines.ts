// Why a server failed to start, from what it wrote to stderr: the lines that name an error, not the last ones
// (`}` and `Node.js v20.19.0` end most Node crashes and say nothing).
const TELLING =
  /error|cannot|can't|could not|failed|not found|no such|denied|invalid|missing|refused|unknown|exception|usage/i;
const NOISE = /^(at\s|Node\.js v\d|[{}[\]()]+$|\^+$|throw\s|triggerUncaughtException)/;
const MAX_LINES = 3;
const MAX_CHARS = 400;

export function tellingLines(stderr: string): string[] {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !NOISE.test(line));
  const telling = lines.filter((line) => TELLING.test(line));
  const chosen = (telling.length > 0 ? telling : lines.slice(-MAX_LINES)).slice(0, MAX_LINES);
  return chosen.map((line) => (line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS)}…` : line));
}
