// A reply's reasoning in its span: the GenAI `reasoning` part of the output message when content is recorded, never
// otherwise (it may hold user data, like the rest of the content).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { traceModel } from '../../src/tracing/traced-model.js';
import { enableAsyncContext, findSpan, makeTracing } from './span-tree.js';

let disableContext: () => void;
beforeAll(() => void (disableContext = enableAsyncContext()));
afterAll(() => disableContext());

const request: ChatRequest = { messages: [{ role: 'user', content: 'How many r in strawberry?' }], purpose: 'think' };
const reply: Partial<ChatResponse> = { content: 'Three.', reasoning: 'Count each letter: s t r a w b e r r y.' };

describe('reasoning in spans', () => {
  it('is the reasoning part of the output message when content is recorded', async () => {
    const tracing = makeTracing();
    const model = new ScriptedModel([reply], { modelName: 'reasoner' });
    await traceModel(model, { tracer: tracing.tracer, recordContent: true }).chat(request);
    const output = JSON.parse(String(findSpan(tracing.spans(), 'chat reasoner').attributes['gen_ai.output.messages']));
    expect(output[0].parts).toEqual([
      { type: 'reasoning', content: 'Count each letter: s t r a w b e r r y.' },
      { type: 'text', content: 'Three.' },
    ]);
  });

  it('is nowhere in the span when content is not recorded', async () => {
    const tracing = makeTracing();
    const model = new ScriptedModel([reply], { modelName: 'reasoner' });
    await traceModel(model, { tracer: tracing.tracer }).chat(request);
    expect(JSON.stringify(findSpan(tracing.spans(), 'chat reasoner').attributes)).not.toContain('strawberry');
    expect(JSON.stringify(findSpan(tracing.spans(), 'chat reasoner').attributes)).not.toContain('Count each letter');
  });
});
