// Reasoning kept apart: the model's thoughts and preambles go to the journal and events, not into the conversation
// the next request carries (think({ keepReasoning: true }) keeps them for a model that wants them back); what a
// provider must get back (replay) is sent either way.
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { runPipeline as recordedRun } from '../../src/durable/durable-run.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel, type ScriptedStep } from '../../src/model/scripted-model.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { testTools } from '../support/stage-tools.js';

const script = (): ScriptedStep[] => [
  {
    content: 'Let me use the calculator first.',
    reasoning: 'The user wants 17 * 23; I should not guess.',
    replay: { provider: 'test', items: [{ signature: 'sig-1' }] },
    toolCalls: [{ name: 'calculator', arguments: '{"expression":"17 * 23"}' }],
  },
  { content: '17 * 23 = 391.', reasoning: 'The tool said 391.' },
];

async function run(keepReasoning?: boolean) {
  const model = new ScriptedModel(script());
  const events: RunEvent[] = [];
  const store = memoryStore();
  const result = await recordedRun(
    reactPipeline(keepReasoning === undefined ? {} : { think: { keepReasoning } }),
    { task: 'What is 17 * 23?' },
    { store, deps: { model, tools: testTools(), onEvent: (event) => events.push(event) } },
  );
  model.assertConsumed();
  return { result, events, model, journal: await store.journal(result.runId) };
}

describe('reasoning kept apart', () => {
  it('observe-plan-act "Is raw LLM reasoning text isolated from execution context storage?": thoughts and preambles stay out of the next request and the state, in the journal and events', async () => {
    const { result, events, model, journal } = await run();
    expect(result).toMatchObject({ status: 'completed', answer: '17 * 23 = 391.' });
    const second = JSON.stringify(model.requests[1]!.messages);
    expect(second).not.toContain('I should not guess');
    expect(second).not.toContain('Let me use the calculator first.');
    // The provider's own round-trip is kept.
    expect(second).toContain('sig-1');
    expect(JSON.stringify(result.state.messages)).not.toMatch(/I should not guess|The tool said 391|calculator first/);
    expect(events.find((event) => event.type === 'tool_preamble')!.data.text).toBe('Let me use the calculator first.');
    expect(events.find((event) => event.type === 'model_reply')!.data.reasoning).toContain('I should not guess');
    expect(JSON.stringify(journal)).toContain('I should not guess');
  });

  it('think({ keepReasoning: true }) sends them back, for a model that needs them', async () => {
    const { model } = await run(true);
    const second = JSON.stringify(model.requests[1]!.messages);
    expect(second).toContain('I should not guess');
    expect(second).toContain('Let me use the calculator first.');
  });
});
