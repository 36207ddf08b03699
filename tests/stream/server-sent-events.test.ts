// toServerSentEvents served by a real node:http server on 127.0.0.1 and read with fetch, as a browser's EventSource would.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline, Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/index.js';
import { serverSentEventsHeaders, toServerSentEvents } from '../../src/stream/server-sent-events.js';
import { streamRun, type RunStream } from '../../src/stream/stream-run.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';

const loopback = useLoopbackServer({ timeoutMs: 10_000 });
let http: Server | undefined;

afterEach(async () => {
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve) ?? resolve(undefined));
  http = undefined;
});

/** Serves one run's stream at /events, honouring Last-Event-ID. */
async function serve(stream: RunStream, cancelRunOnClose = true): Promise<string> {
  http = createServer((request, response) => {
    const after = Number(request.headers['last-event-id'] ?? 0);
    response.writeHead(200, serverSentEventsHeaders);
    // pipeline, not pipe: a client that goes away closes the body, which cancels the run.
    pipeline(Readable.fromWeb(toServerSentEvents(stream, { after, cancelRunOnClose })), response, () => undefined);
  });
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/events`;
}

function parse(body: string): Array<{ id: number; event: string; data: { seq: number; type: string } }> {
  return body
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      const fields = Object.fromEntries(
        block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
      );
      return {
        id: Number(fields.id),
        event: fields.event!,
        data: JSON.parse(fields.data!) as { seq: number; type: string },
      };
    });
}

describe('toServerSentEvents', () => {
  it('one block per event, id = seq, ending after run_finished; Last-Event-ID resumes after it', async () => {
    loopback.server.streamReply({ content: 'The answer is 395.' }, { delayMs: 2 });
    const stream = streamRun(
      reactPipeline(),
      { task: 'What is 17 * 23 + 4?' },
      { deps: { model: loopback.model(), tools: testTools() } },
    );
    const url = await serve(stream);
    const response = await fetch(url);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const blocks = parse(await response.text());
    expect(blocks.map((block) => block.id)).toEqual(blocks.map((_block, index) => index + 1));
    expect(blocks.every((block) => block.data.seq === block.id && block.data.type === block.event)).toBe(true);
    expect(blocks.at(-1)!.event).toBe('run_finished');
    expect(blocks.filter((block) => block.event === 'text_delta').length).toBeGreaterThan(3);

    const resumed = parse(await (await fetch(url, { headers: { 'last-event-id': '4' } })).text());
    expect(resumed.map((block) => block.id)).toEqual(blocks.slice(4).map((block) => block.id));
  });

  it('a client that goes away cancels the run', async () => {
    loopback.server.streamReply({ content: 'z'.repeat(90) }, { delayMs: 40 });
    const stream = streamRun(
      reactPipeline(),
      { task: 'count' },
      { deps: { model: loopback.model(), tools: testTools() } },
    );
    const controller = new AbortController();
    const response = await fetch(await serve(stream), { signal: controller.signal });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: text_delta')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const result = await stream.result;
    expect(result.status).toBe('cancelled');
  });
});
