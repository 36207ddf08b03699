// A real `stageloop serve` (startServe) on a free loopback port with a store of its own, and an SSE reader over fetch.
import { afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, type RunningServe, type ServeFlags } from '../../app/serve.js';

export interface TestServe {
  running: RunningServe;
  storeFile: string;
  call(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function startTestServe(
  env: Record<string, string> = {},
  flags: Partial<ServeFlags> = {},
): Promise<TestServe> {
  const folder = mkdtempSync(join(tmpdir(), 'stageloop-serve-'));
  const storeFile = join(folder, 'runs.db');
  const running = await startServe({ port: 0, host: '127.0.0.1', store: storeFile, ...flags }, env);
  return {
    running,
    storeFile,
    call: (path, init) => fetch(`${running.url}${path}`, init),
    async close() {
      await running.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

export const jsonPost = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

export interface ServerSentEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Reads a response's SSE blocks; `until` returning true stops reading and drops the connection. */
export async function readEvents(
  response: Response,
  until: (event: ServerSentEvent, all: ServerSentEvent[]) => boolean = () => false,
): Promise<ServerSentEvent[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: ServerSentEvent[] = [];
  let buffer = '';
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return events;
    buffer += decoder.decode(chunk.value, { stream: true });
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop()!;
    for (const block of blocks) {
      const event: ServerSentEvent = { data: '' };
      for (const line of block.split('\n')) {
        const at = line.indexOf(':');
        if (at <= 0) continue;
        const field = line.slice(0, at);
        const value = line.slice(at + 1).replace(/^ /, '');
        if (field === 'id') event.id = value;
        if (field === 'event') event.event = value;
        if (field === 'data') event.data += value;
      }
      events.push(event);
      if (until(event, events)) {
        await reader.cancel();
        return events;
      }
    }
  }
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls GET /v1/runs/:id until the run's status is one of `statuses`. */
export function waitForStatus(
  serve: TestServe,
  runId: string,
  statuses: string[],
): Promise<{ run: { status: string } } & Record<string, unknown>> {
  return waitFor(
    async () => {
      const body = (await (await serve.call(`/v1/runs/${runId}`)).json()) as { run: { status: string } } & Record<
        string,
        unknown
      >;
      return statuses.includes(body.run.status) ? body : undefined;
    },
    `run ${runId} to be ${statuses.join(' or ')}`,
  );
}

/** The settings that point a serve's model at a loopback chat server. */
export const loopbackModelEnv = (url: string): Record<string, string> => ({
  OPENAI_BASE_URL: url,
  OPENAI_API_KEY: 'sk-test',
  OPENAI_MODEL: 'test-model',
});

/** Call at the top of a test file: `serves.start()` starts a serve that is closed after the test. */
export function useServes(): { start(env?: Record<string, string>, flags?: Partial<ServeFlags>): Promise<TestServe> } {
  const started: TestServe[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((serve) => serve.close()));
  });
  return {
    async start(env, flags) {
      const serve = await startTestServe(env, flags);
      started.push(serve);
      return serve;
    },
  };
}
