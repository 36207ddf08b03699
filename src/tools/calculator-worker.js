// Calculator worker process: evaluates one expression at a time with a limited mathjs instance (plain JS, no loader needed).
/**
 * Messages in:  { id: number, expression: string, maxNodes: number, maxResultChars: number }
 * Messages out: { type: 'ready' } once mathjs is loaded, { type: 'load-error', message },
 *               { type: 'result', id, ok: true, value: string } or { type: 'result', id, ok: false, message: string }
 * Runs as a child process (forked with --max-old-space-size): runaway work is stopped from outside by the host's kill
 * timer, and running out of memory ends this process only.
 */
import { createRequire } from 'node:module';

const send = (message) => process.send?.(message);
// The host went away: nothing is left to answer.
process.on('disconnect', () => process.exit(0));

// Functions that parse or alter the instance from inside an expression.
const DISABLED = ['import', 'reviver', 'evaluate', 'parse', 'simplify', 'derivative', 'resolve', 'compile'];
// mathjs builds its own functions from `config` and `typed`, so they cannot be overridden; they are shadowed in the
// scope instead (names resolve from the scope first). `config(...)` would otherwise change every later evaluation.
// `createUnit` is shadowed too: overriding it builds every unit at start-up (~200 ms), and no other function calls it.
const SHADOWED = ['config', 'typed', 'createUnit'];
const MAX_SHOWN_ENTRIES = 10_000;

/**
 * Loaded once per worker, when the worker starts. mathjs's single-file build loads about four times faster than its
 * ESM graph of hundreds of files, with the same API; its default instance belongs to this process alone.
 */
const mathReady = Promise.resolve().then(() => {
  const math = createRequire(import.meta.url)('mathjs/lib/browser/math.js');
  const parse = math.parse;
  const format = math.format;
  const size = math.size;
  const disabled = (name) =>
    function () {
      throw new Error(`Function ${name} is disabled in the calculator`);
    };
  math.import(Object.fromEntries(DISABLED.map((name) => [name, disabled(name)])), { override: true });
  const scope = () => new Map(SHADOWED.map((name) => [name, disabled(name)]));
  return { parse, format, size, scope };
});

mathReady.then(
  () => send({ type: 'ready' }),
  (error) => send({ type: 'load-error', message: String(error?.message ?? error) }),
);

process.on('message', async (job) => {
  try {
    const { parse, format, size, scope } = await mathReady;
    const node = parse(job.expression);
    let count = 0;
    node.traverse(() => {
      count += 1;
    });
    if (count > job.maxNodes)
      throw new Error(
        `The expression has ${count} parts; the limit is ${job.maxNodes}. Split it into smaller calculations.`,
      );
    let value = node.compile().evaluate(scope());
    // Several statements ("a = 2; a * 3") give a ResultSet: report the last value, as a calculator would.
    if (value && value.isResultSet)
      value = value.entries.length > 0 ? value.entries[value.entries.length - 1] : undefined;
    let text = value === undefined ? '(no value)' : describe(value, format, size);
    if (text.length > job.maxResultChars)
      text = `${text.slice(0, job.maxResultChars)}... [result cut: ${text.length} characters]`;
    send({ type: 'result', id: job.id, ok: true, value: text });
  } catch (error) {
    send({ type: 'result', id: job.id, ok: false, message: String(error?.message ?? error) });
  }
});

/** Formats a value; a large matrix is summarised, since formatting millions of entries would only hit the kill timer. */
function describe(value, format, size) {
  if (value && (value.isMatrix || Array.isArray(value))) {
    const dimensions = size(value);
    const shape = (dimensions.valueOf ? dimensions.valueOf() : dimensions).map(Number);
    const count = shape.reduce((product, length) => product * length, 1);
    if (count > MAX_SHOWN_ENTRIES)
      return `a matrix of size ${shape.join(' x ')} (${count} entries, too many to show; ask for size(...), sum(...) or a slice)`;
  }
  // Plain notation up to 1e15 ("1000000", not "1e+6"), 14 significant digits to hide binary rounding noise.
  return format(value, { precision: 14, lowerExp: -9, upperExp: 15 });
}
