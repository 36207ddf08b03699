// Text rules the offline model reasons with: finding arithmetic in a sentence and turning a step into an expression.

const numberPattern = /-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi;

/** Spelled-out operators become symbols so "5 plus 3" reads like "5 + 3". */
function symbolise(text: string): string {
  return text
    .replace(/\bmultiplied by\b|\btimes\b/gi, ' * ')
    .replace(/\bdivided by\b/gi, ' / ')
    .replace(/\bplus\b/gi, ' + ')
    .replace(/\bminus\b/gi, ' - ')
    .replace(/(\d)\s*[x×]\s*(?=\d)/g, '$1 * ')
    .replace(/÷/g, ' / ');
}

/** The longest run of arithmetic in the text that has an operator between two operands, e.g. "17 * 23 + 4". */
export function findExpression(text: string): string | undefined {
  const runs = symbolise(text).match(/[-+*/^%().\d\s]+/g) ?? [];
  let best: string | undefined;
  for (const run of runs) {
    const candidate = balanced(
      run
        .trim()
        .replace(/[-+*/^%.\s]+$/, '')
        .replace(/^[+*/^%.\s]+/, '')
        .replace(/\s+/g, ' '),
    );
    if (!/\d[\d.)\s]*[-+*/^%][\s(]*-?\d/.test(candidate)) continue;
    if (best === undefined || candidate.length > best.length) best = candidate;
  }
  return best;
}

/** Drops parentheses that open or close nothing, so "(12*12" from a sentence still evaluates. */
function balanced(text: string): string {
  let result = text;
  while (count(result, '(') > count(result, ')')) result = result.replace('(', '');
  while (count(result, ')') > count(result, '('))
    result = result.slice(0, result.lastIndexOf(')')) + result.slice(result.lastIndexOf(')') + 1);
  return result.trim();
}

function count(text: string, character: string): number {
  return text.split(character).length - 1;
}

/** The last number written in a text (a tool result, a step result), as written. */
export function lastNumber(text: string): string | undefined {
  const numbers = text.match(numberPattern);
  return numbers?.[numbers.length - 1];
}

// "it", "that" or "the result" name the previous result (of a step, or of the session's latest answer).
const previousWord = '(?: it| that| this| the result| the answer)?';
const operations: Array<[RegExp, (previous: string, operand: string) => string]> = [
  [
    new RegExp(`\\b(?:add|plus|increase${previousWord} by)\\s+(-?\\d+(?:\\.\\d+)?)`, 'i'),
    (previous, operand) => `${previous} + ${operand}`,
  ],
  [
    new RegExp(`\\b(?:subtract|minus|take away|decrease${previousWord} by)\\s+(-?\\d+(?:\\.\\d+)?)`, 'i'),
    (previous, operand) => `${previous} - ${operand}`,
  ],
  [
    new RegExp(`\\b(?:multiply${previousWord}(?: by)?|times)\\s+(-?\\d+(?:\\.\\d+)?)`, 'i'),
    (previous, operand) => `${previous} * ${operand}`,
  ],
  [
    new RegExp(`\\bdivide${previousWord}(?: by)?\\s+(-?\\d+(?:\\.\\d+)?)`, 'i'),
    (previous, operand) => `${previous} / ${operand}`,
  ],
  [
    new RegExp(`\\b(?:to the power of|raise${previousWord} to)\\s+(-?\\d+(?:\\.\\d+)?)`, 'i'),
    (previous, operand) => `${previous} ^ ${operand}`,
  ],
];

/**
 * The expression for one step of a plan: its own arithmetic when it has some ("Compute 12*12"), else an operation
 * applied to the previous step's result ("add 10" after 144 gives "144 + 10").
 */
export function stepExpression(step: string, previous: string | undefined): string | undefined {
  const own = findExpression(step);
  if (own !== undefined) return own;
  if (previous === undefined) return undefined;
  for (const [pattern, build] of operations) {
    const match = pattern.exec(step);
    if (match?.[1] !== undefined) return build(previous, match[1]);
  }
  if (/\bsquare root\b/i.test(step)) return `sqrt(${previous})`;
  if (/\bsquare\b/i.test(step)) return `${previous} ^ 2`;
  if (/\bdouble\b/i.test(step)) return `${previous} * 2`;
  if (/\bhalve\b|\bhalf\b/i.test(step)) return `${previous} / 2`;
  return undefined;
}

/** Splits a multi-part task ("Compute 12*12, then add 10, then divide by 2") into its parts, in order. */
export function splitTask(task: string): string[] {
  const parts = task
    .split(/(?:[,;]\s*|\s+)(?:and\s+)?then\b\s*|;\s*|\.\s+(?=[A-Z])/i)
    .map((part) => part.trim().replace(/[.?!]+$/, ''))
    .filter((part) => part !== '');
  return parts.map((part) => part.charAt(0).toUpperCase() + part.slice(1));
}

/** A step of the offline planner's graph. */
export interface OfflineStep {
  id: string;
  description: string;
  dependsOn: string[];
}

/**
 * The task as a dependency graph: each part ("..., then ...") depends on every step of the part before it, and a
 * part that lists several calculations ("Compute 2*3, 4*5 and 6*7") becomes that many independent steps.
 */
export function planTask(task: string): OfflineStep[] {
  const steps: OfflineStep[] = [];
  let previous: string[] = [];
  for (const part of splitTask(task)) {
    const ids: string[] = [];
    for (const description of independentPieces(part)) {
      const id = `s${steps.length + 1}`;
      steps.push({ id, description, dependsOn: previous });
      ids.push(id);
    }
    previous = ids;
  }
  return steps;
}

/** "Compute 2*3, 4*5 and 6*7" gives "Compute 2*3", "Compute 4*5", "Compute 6*7"; any other part stays whole. */
function independentPieces(part: string): string[] {
  const pieces = part.split(/\s*,\s*(?:and\s+)?|\s+and\s+/).filter((piece) => piece.trim() !== '');
  if (pieces.length < 2) return [part];
  const expressions = pieces.map((piece) => findExpression(piece));
  if (expressions.some((expression) => expression === undefined)) return [part];
  const verb = pieces[0]!.slice(0, pieces[0]!.indexOf(expressions[0]!.split(' ')[0]!)).trim();
  return expressions.map((expression) => (verb === '' ? expression! : `${verb} ${expression!}`));
}

/** "Add the three results", "multiply the results": one operation over several results; undefined otherwise. */
export function combineExpression(step: string, numbers: readonly string[]): string | undefined {
  if (numbers.length < 2 || !/\b(results|numbers|them|all)\b/i.test(step)) return undefined;
  if (/\b(add|sum|total|plus)\b/i.test(step)) return numbers.join(' + ');
  if (/\b(multiply|product)\b/i.test(step)) return numbers.join(' * ');
  return undefined;
}
