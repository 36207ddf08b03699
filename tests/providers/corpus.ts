// The Responses and Anthropic corpora: each recording as the reply a loopback server gives, and what reading it must yield.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replyOfFile, type RecordedEvent, type RecordedReply } from '../support/recorded-server.js';

export const corpusFolder = (api: 'anthropic' | 'responses') =>
  fileURLToPath(new URL(`../fixtures/providers/${api}/`, import.meta.url));

/** What one recording must read as; `error` is a pattern the one-line error message matches. */
export interface Expectation {
  file: string;
  /** The status the recording was answered with, when not 200 (vercel/ai's error bodies come without one). */
  status?: number;
  content?: string;
  toolCalls?: string[];
  finishReason?: string;
  usage?: { inputTokens: number; outputTokens: number; cachedInputTokens: number; reasoningTokens: number };
  /** Reasoning text begins with this. */
  reasoning?: string;
  /** Items kept for the next request. */
  replayItems?: number;
  error?: string;
  /** The recording's text deltas were shortened by its source (the final event has the whole text). */
  deltasTrimmed?: boolean;
  /** Which step of a recording that holds several streamed responses. */
  part?: number;
}

export function expectations(api: 'anthropic' | 'responses'): Expectation[] {
  return JSON.parse(readFileSync(join(corpusFolder(api), 'expectations.json'), 'utf8')) as Expectation[];
}

/** Every recording file of the corpus (the README and expectations aside). */
export function recordingFiles(api: 'anthropic' | 'responses'): string[] {
  return readdirSync(corpusFolder(api), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(json|chunks\.txt)$/.test(entry.name) && entry.name !== 'expectations.json')
    .map((entry) => join(entry.parentPath, entry.name).slice(corpusFolder(api).length));
}

/** The reply a recording is: pydantic-ai's converted cassettes carry status and body or SSE text; vercel/ai's are bare. */
export function replyOf(
  api: 'anthropic' | 'responses',
  expectation: Expectation,
): RecordedReply & { streamed: boolean } {
  const path = join(corpusFolder(api), expectation.file);
  if (expectation.file.startsWith('pydantic-ai/')) {
    const recording = JSON.parse(readFileSync(path, 'utf8')) as { status: number; body?: unknown; sse?: string };
    if (recording.sse !== undefined) return { status: recording.status, sse: recording.sse, streamed: true };
    return { status: recording.status, body: recording.body, streamed: false };
  }
  const reply = replyOfFile(path, { ...(expectation.status !== undefined && { status: expectation.status }) });
  if (expectation.part === undefined || reply.events === undefined)
    return { ...reply, streamed: reply.events !== undefined };
  // A vercel/ai recording of a whole multi-step call holds one stream per step, each opened by response.created.
  const parts: RecordedEvent[][] = [];
  for (const event of reply.events) {
    if ((event.data as { type?: string }).type === 'response.created' || parts.length === 0) parts.push([]);
    parts.at(-1)!.push(event);
  }
  return { events: parts[expectation.part]!, streamed: true };
}
