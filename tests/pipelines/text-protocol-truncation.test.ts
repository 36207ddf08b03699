// The text tool protocol: an Action line cut off by the output limit is broken JSON, so think asks again (as for cut
// native tool-call arguments) instead of taking the cut line as the answer.
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';

const loopback = useLoopbackServer({ model: 'plain-model', toolProtocol: 'text' });

describe('text protocol truncation', () => {
  it('eight-stage "Truncation: retry only when tool call arguments were cut off": a cut Action line gets a truncation retry, then the tool runs and the run completes', async () => {
    loopback.server
      .replyWith({
        content:
          'Thought: I need the calculator.\nAction: {"type":"tool","name":"calculator","args":{"expression":"17 *',
        finishReason: 'length',
      })
      .replyWith({ content: 'Action: {"type":"tool","name":"calculator","args":{"expression":"17 * 23"}}' })
      .replyWith({ content: 'Action: {"type":"finish","answer":"17 * 23 = 391"}' });
    const events: RunEvent[] = [];
    const result = await runPipeline(
      reactPipeline(),
      { task: 'What is 17 * 23?' },
      { deps: { model: loopback.model(), tools: testTools(), onEvent: (event) => events.push(event) } },
    );
    expect(result).toMatchObject({ status: 'completed', answer: '17 * 23 = 391' });
    expect(events.filter((event) => event.type === 'truncation_retry')).toHaveLength(1);
    expect(JSON.stringify(loopback.server.requests[2]!.body.messages)).toContain('391');
  });
});
