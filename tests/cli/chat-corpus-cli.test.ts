// The CLI on recorded answers of real providers (tests/fixtures/providers/chat-completions), replayed on loopback: the
// progress view listens, so every request is streamed, whatever the server answers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recording } from '../support/chat-corpus.js';
import { startReplayServer, type ReplayServer } from '../support/replay-server.js';
import { runCli } from '../support/run-cli.js';

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(() => server.close());

const env = () => ({ OPENAI_BASE_URL: server.url('/v1'), OPENAI_MODEL: 'recorded', OPENAI_API_KEY: 'sk-test' });

describe('stageloop run on recorded provider answers', () => {
  it('a JSON answer to the streamed request is the answer; show tells the reasoning', async () => {
    server.queue(recording('deepseek/reasoning.json').answer);
    const result = await runCli(['run', 'How many r are in strawberry?'], env());
    expect(result.code, result.stderr).toBe(0);
    expect((server.requests[0]!.body as { stream?: boolean }).stream).toBe(true);
    expect(result.stdout.trim()).toBe('There are **3** “r”s in **“strawberry”**.');
    const runId = /run ([0-9a-f]+) \(recorded/.exec(result.stderr)![1]!;
    const shown = await runCli(['show', runId], env());
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('thought: "We need answer simple. Count r in strawberry.');
  });

  it('xAI, streamed: reasoning_delta events, and the reasoning tokens counted as output', async () => {
    server.queue(recording('xai/text-grok-3-mini-streamed.json').answer);
    const result = await runCli(['run', '--events', 'Say a single word.'], env());
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
    const thought = events.filter((event) => event.type === 'reasoning_delta').map((event) => event.data.text);
    expect(thought.join('')).toBe('First, the user said');
    const reply = events.find((event) => event.type === 'model_reply')!.data;
    expect(reply).toMatchObject({ text: 'Hello', reasoning: 'First, the user said' });
    expect(reply.usage).toMatchObject({ outputTokens: 291, reasoningTokens: 290, cachedInputTokens: 11 });
  });

  it.each([
    [
      'vllm/error-object-error-model-missing.json',
      'answered 404: The model `Qwen1.5-14B-Chat-GPTQ-Int8` does not exist.',
    ],
    ['gemini/error-list-unknown-fields.json', `answered 400: Invalid JSON payload received. Unknown name "extra_body"`],
  ])("%s: the server's own words, on one line", async (name, words) => {
    server.queue(recording(name).answer);
    const result = await runCli(['run', 'hi'], env());
    expect(result.code).toBe(1);
    const line = result.stderr.split('\n').find((text) => text.includes('answered'));
    expect(line).toContain(words);
    expect(result.stderr).not.toMatch(/no body|\n\s+at /);
  });
});
