// Datasets: JSONL (one case a line) or a JS/TS module exporting the cases; every mistake is one line naming where.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { JsonValue } from '../common/json.js';
import { StageloopError } from '../common/stageloop-error.js';
import { graderProblem, graderTypes } from './graders/spec.js';
import type { EvalCase, Grader } from './graders/types.js';
import { builtInDatasets } from './builtin-datasets.js';

export interface Dataset {
  /** Where it came from, for reports ("examples/math.jsonl", "builtin:arithmetic"). */
  name: string;
  cases: EvalCase[];
  /** Graders a module dataset adds to every case (functions cannot be written in JSONL). */
  graders?: Grader[];
}

const json: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(json), z.record(z.string(), json)]),
);
const jsonObject = z.record(z.string(), json);
const threshold = { threshold: z.number().min(0).max(1).optional() };

const graderSpec = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('contains'), value: json.optional(), ...threshold }),
  z.strictObject({ type: z.literal('exact'), value: z.string().optional(), ...threshold }),
  z.strictObject({ type: z.literal('normalized'), value: z.string().optional(), ...threshold }),
  z.strictObject({
    type: z.literal('regex'),
    pattern: z.string(),
    flags: z
      .string()
      .regex(/^[dgimsuvy]*$/)
      .optional(),
    ...threshold,
  }),
  z.strictObject({
    type: z.literal('number'),
    value: z.number().optional(),
    tolerance: z.number().min(0).optional(),
    relative: z.boolean().optional(),
    ...threshold,
  }),
  z.strictObject({ type: z.literal('json-schema'), schema: jsonObject, ...threshold }),
  z.strictObject({ type: z.literal('json-subset'), value: json.optional(), ...threshold }),
  z.strictObject({
    type: z.literal('tool-called'),
    name: z.string().min(1),
    arguments: jsonObject.optional(),
    times: z.number().int().min(1).optional(),
    ...threshold,
  }),
  z.strictObject({ type: z.literal('tool-not-called'), name: z.string().min(1).optional(), ...threshold }),
  z.strictObject({
    type: z.literal('stop-reason'),
    kind: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    ...threshold,
  }),
  z.strictObject({ type: z.literal('max-tokens'), value: z.number().int().min(1), ...threshold }),
  z.strictObject({ type: z.literal('max-time'), ms: z.number().min(1), ...threshold }),
  z.strictObject({ type: z.literal('judge'), rubric: z.string().min(1), ...threshold }),
]);

const caseSchema = z.strictObject({
  id: z.union([z.string().min(1), z.number()]).transform(String),
  task: z.string().trim().min(1),
  input: jsonObject.optional(),
  expected: json.optional(),
  graders: z.array(graderSpec).optional(),
  tags: z.array(z.string()).optional(),
});

/** The first problem zod found, as "field: what is wrong" on one line. */
function problemOf(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const path = issue.path.join('.');
  if (issue.code === 'invalid_union' && issue.path.at(-1) === 'type')
    return `${path}: unknown grader type: use one of ${graderTypes.join(', ')}`;
  if (issue.code === 'invalid_union' && issue.path.includes('graders'))
    return `${path}: unknown grader type: use one of ${graderTypes.join(', ')}`;
  if (issue.code === 'unrecognized_keys')
    return `${path ? `${path}: ` : ''}unknown field ${issue.keys.map((key) => `"${key}"`).join(', ')} (a case has id, task, input, expected, graders, tags)`;
  return `${path || 'the case'}: ${issue.message}`;
}

/** Checks cases (from any source), naming each wrong one by `where(index)`; ids must be unique. */
export function checkCases(raw: readonly unknown[], where: (index: number) => string): EvalCase[] {
  const seen = new Map<string, number>();
  return raw.map((value, index) => checkCase(value, where(index), seen, index, where));
}

/** One case checked, its graders made once (a bad pattern names its place before any run), its id new in `seen`. */
function checkCase(
  value: unknown,
  place: string,
  seen: Map<string, number>,
  key: number,
  where: (key: number) => string,
): EvalCase {
  const parsed = caseSchema.safeParse(value);
  if (!parsed.success) throw new StageloopError('usage', `${place}: ${problemOf(parsed.error)}`);
  const evalCase = Object.fromEntries(
    Object.entries(parsed.data).filter(([, field]) => field !== undefined),
  ) as unknown as EvalCase;
  const graderMistake = graderProblem(evalCase);
  if (graderMistake !== undefined) throw new StageloopError('usage', `${place}: ${graderMistake}`);
  const earlier = seen.get(evalCase.id);
  if (earlier !== undefined)
    throw new StageloopError(
      'usage',
      `${place}: id "${evalCase.id}" is used already by ${where(earlier)}: give each case its own id`,
    );
  seen.set(evalCase.id, key);
  return evalCase;
}

/** A JSONL text: one case per line; blank lines and lines starting with // are skipped. */
export function parseJsonl(text: string, name: string): Dataset {
  const reader = jsonlReader(name);
  text.split(/\r?\n/).forEach(reader.line);
  return reader.done();
}

/**
 * Reads a JSONL dataset line by line, checking each case as it comes and keeping only the checked case: a large
 * file is never held as one text, a list of lines and a list of parsed values at once.
 */
function jsonlReader(
  name: string,
  keep?: (evalCase: EvalCase) => void,
): { line(content: string): void; done(): Dataset } {
  const cases: EvalCase[] = [];
  const kept = keep ?? ((evalCase: EvalCase) => cases.push(evalCase));
  let count = 0;
  const seen = new Map<string, number>();
  let number = 0;
  return {
    line(content) {
      number += 1;
      const trimmed = content.trim();
      if (trimmed === '' || trimmed.startsWith('//')) return;
      let value: unknown;
      try {
        value = JSON.parse(trimmed);
      } catch (error) {
        throw new StageloopError(
          'usage',
          `${name}:${number}: not valid JSON (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): write one case object per line`,
        );
      }
      const line = number;
      kept(checkCase(value, `${name}:${line}`, seen, line, (earlier) => `${name}:${earlier}`));
      count += 1;
    },
    done() {
      if (count === 0)
        throw new StageloopError(
          'usage',
          `${name}: no cases: write one JSON object per line, like {"id":"add","task":"What is 2 + 2?","expected":4}`,
        );
      return { name, cases };
    },
  };
}

/** A JSONL file read as a stream of lines (see jsonlReader); `keep` takes each checked case (default: the result's). */
async function fromJsonlFile(file: string, name: string, keep?: (evalCase: EvalCase) => void): Promise<Dataset> {
  const reader = jsonlReader(name, keep);
  for await (const content of linesOf(file)) reader.line(content);
  return reader.done();
}

/** A JSONL file's cases, each checked, one at a time as the caller asks (the file is read no further ahead). */
export async function* jsonlCases(file: string, name: string): AsyncGenerator<EvalCase> {
  const kept: EvalCase[] = [];
  const reader = jsonlReader(name, (evalCase) => kept.push(evalCase));
  for await (const content of linesOf(file)) {
    reader.line(content);
    if (kept.length > 0) yield kept.pop()!;
  }
  reader.done();
}

/** The lines of a file; readline pauses the file while its lines wait unread. */
async function* linesOf(file: string): AsyncGenerator<string> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    yield* lines;
  } finally {
    lines.close();
  }
}

/** What a module dataset exports: `export default [...cases]`, or `{ cases, graders }`, or a function returning either. */
async function fromModule(file: string, name: string): Promise<Dataset> {
  let loaded: { default?: unknown; cases?: unknown; graders?: unknown };
  try {
    loaded = (await import(pathToFileURL(file).href)) as typeof loaded;
  } catch (error) {
    throw new StageloopError(
      'usage',
      `${name}: the module could not be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
    );
  }
  let value: unknown =
    loaded.default ?? (loaded.cases !== undefined ? { cases: loaded.cases, graders: loaded.graders } : undefined);
  if (typeof value === 'function') value = await (value as () => unknown)();
  const shape = Array.isArray(value)
    ? { cases: value as unknown[] }
    : (value as { cases?: unknown; graders?: unknown } | undefined);
  if (!shape || !Array.isArray(shape.cases))
    throw new StageloopError(
      'usage',
      `${name}: export the cases: export default [{ id, task, expected }], or { cases, graders }`,
    );
  const graders = shape.graders === undefined ? undefined : (shape.graders as unknown[]);
  if (
    graders !== undefined &&
    !(Array.isArray(graders) && graders.every((grader) => typeof (grader as Grader | null)?.grade === 'function'))
  ) {
    throw new StageloopError(
      'usage',
      `${name}: "graders" must be an array of graders (made by the functions of stageloop's eval graders)`,
    );
  }
  return {
    name,
    cases: checkCases(shape.cases, (index) => `${name}: case ${index + 1}`),
    ...(graders !== undefined && { graders: graders as Grader[] }),
  };
}

/** `builtin:NAME`, a .jsonl file, or a .js/.mjs/.ts module. */
export async function loadDataset(source: string, cwd = process.cwd()): Promise<Dataset> {
  if (source.startsWith('builtin:')) {
    const wanted = source.slice('builtin:'.length);
    // Own names only: "builtin:constructor" is not a dataset because every object has a constructor.
    const cases = Object.hasOwn(builtInDatasets, wanted) ? builtInDatasets[wanted] : undefined;
    if (cases === undefined)
      throw new StageloopError(
        'usage',
        `no built-in dataset "${source}": choose ${Object.keys(builtInDatasets)
          .map((name) => `builtin:${name}`)
          .join(', ')}`,
      );
    return { name: source, cases: checkCases(cases, (index) => `${source}: case ${index + 1}`) };
  }
  const file = resolve(cwd, source);
  const extension = extname(file);
  if (['.js', '.mjs', '.ts', '.mts'].includes(extension)) return fromModule(file, source);
  return readJsonl(file, source);
}

/** A JSONL dataset file, each checked case given to `keep` (default: kept in the result); a missing file is named. */
export async function readJsonl(file: string, source: string, keep?: (evalCase: EvalCase) => void): Promise<Dataset> {
  try {
    return await fromJsonlFile(file, source, keep);
  } catch (error) {
    if (error instanceof StageloopError) throw error;
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new StageloopError(
      missing ? 'not_found' : 'usage',
      missing
        ? `${source}: no such dataset file (give a .jsonl file, a .js/.ts module, or builtin:arithmetic)`
        : `${source}: cannot be read (${(error as Error).message})`,
    );
  }
}
