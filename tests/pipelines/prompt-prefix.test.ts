// Prompt caching by design: a provider caches the longest prefix a request shares with the one before, so a ReAct run
// must only ever append to its conversation, and a plan run must keep each caller's system prompt and tools unchanged.
import { describe, expect, it } from 'vitest';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { reactPipeline } from '../../pipelines/react.js';
import { runPipeline } from '../../src/engine/runner.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import type { ChatRequest } from '../../src/model/types.js';
import { testTools } from '../support/stage-tools.js';

const calc = (expression: string) => ({ name: 'calculator', arguments: JSON.stringify({ expression }) });
const json = (value: unknown) => (value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown));

describe('requests a provider can serve from its prompt cache', () => {
  it('every request of a ReAct run repeats the previous request as its prefix, with the same tools', async () => {
    const model = new ScriptedModel([
      { toolCalls: [calc('17 * 23')] },
      { toolCalls: [calc('391 + 4')] },
      { toolCalls: [calc('395 / 5')] },
      { toolCalls: [calc('79 - 9')] },
      { toolCalls: [calc('70 * 2')] },
      { content: 'The result is 140.' },
    ]);
    const result = await runPipeline(
      reactPipeline(),
      { task: 'Work out ((17*23+4)/5-9)*2 step by step.' },
      {
        deps: { model, tools: testTools() },
      },
    );
    expect(result.status).toBe('completed');
    const requests = model.requests.filter((request) => request.purpose === 'think');
    expect(requests.length).toBe(6);
    for (let index = 1; index < requests.length; index++) {
      const before = json(requests[index - 1]!.messages) as unknown[];
      const now = json(requests[index]!.messages) as unknown[];
      expect(now.slice(0, before.length), `request ${index + 1} starts with request ${index}`).toEqual(before);
      expect(now.length).toBeGreaterThan(before.length);
      expect(json(requests[index]!.tools)).toEqual(json(requests[0]!.tools));
    }
  });

  it('plan, execute and replan requests keep their system prompt and tools from call to call', async () => {
    const plan = { content: JSON.stringify({ steps: [{ description: 'Compute 12*12' }, { description: 'Add 10' }] }) };
    const keep = { content: '{"need_replan":false,"reason":"on track","new_steps":[]}' };
    const model = new ScriptedModel([
      plan,
      { toolCalls: [calc('12*12')] },
      { content: '144' },
      keep,
      { toolCalls: [calc('144+10')] },
      { content: '154' },
      keep,
      { content: 'The answer is 154.' },
    ]);
    await runPipeline(
      planExecuteReplanPipeline(),
      { task: 'Compute 12*12, then add 10' },
      {
        deps: { model, tools: testTools() },
      },
    );
    const byPurpose = new Map<string, ChatRequest[]>();
    for (const request of model.requests)
      byPurpose.set(request.purpose, [...(byPurpose.get(request.purpose) ?? []), request]);
    expect(byPurpose.get('think')!.length).toBeGreaterThanOrEqual(4);
    for (const [purpose, requests] of byPurpose) {
      const system = (request: ChatRequest) => json(request.messages.filter((message) => message.role === 'system'));
      for (const request of requests.slice(1)) {
        expect(system(request), `${purpose}: the system prompt`).toEqual(system(requests[0]!));
        expect(json(request.tools), `${purpose}: the tools`).toEqual(json(requests[0]!.tools));
      }
    }
  });
});
