// The corpus of recorded Chat Completions answers of real providers (tests/fixtures/providers/chat-completions, sources
// in its README): each file one recorded answer and what the adapter must make of it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FinishReason } from '../../src/model/types.js';
import type { JsonObject } from '../../src/common/json.js';
import type { RecordedAnswer } from './replay-server.js';

export interface CorpusExpectation {
  /** The reply's text, exactly, or a part of it. */
  text?: string;
  textIncludes?: string;
  reasoning?: string;
  reasoningIncludes?: string;
  /** [name, arguments] of each tool call, in order. */
  toolCalls?: Array<[string, string]>;
  finishReason?: FinishReason;
  usage?: { inputTokens: number; outputTokens: number; cachedInputTokens: number; reasoningTokens: number };
  /** The fields the reply carries back to its server (ReasoningReplay items[0]). */
  replay?: JsonObject;
  /** The call fails: a part of its one-line message, and its kind. */
  error?: string;
  errorKind?: string;
}

export interface CorpusRecording {
  /** Path under the corpus folder, e.g. deepseek/tool-call.json. */
  name: string;
  provider: string;
  source: string;
  trimmed?: string;
  /** The request was streamed. */
  stream: boolean;
  answer: RecordedAnswer;
  expect: CorpusExpectation;
}

export const corpusFolder = fileURLToPath(new URL('../fixtures/providers/chat-completions/', import.meta.url));

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith('.json') ? [path] : [];
  });
}

/** Every recording of the corpus, sorted by name. */
export function loadCorpus(): CorpusRecording[] {
  return filesUnder(corpusFolder)
    .map((path) => ({
      ...(JSON.parse(readFileSync(path, 'utf8')) as Omit<CorpusRecording, 'name'>),
      name: relative(corpusFolder, path),
    }))
    .sort((first, second) => first.name.localeCompare(second.name));
}

/** One recording by name (deepseek/tool-call.json). */
export function recording(name: string): CorpusRecording {
  const found = loadCorpus().find((entry) => entry.name === name);
  if (found === undefined) throw new Error(`chat-corpus: no recording ${name}`);
  return found;
}
