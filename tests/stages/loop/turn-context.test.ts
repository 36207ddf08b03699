import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { renderTurnMessages, shortenedMarker, turnContext } from '../../../stages/loop/turn-context.js';
import { reactPipeline } from '../../../pipelines/react.js';
import { runPipeline } from '../../../src/engine/runner.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import type { ChatMessage } from '../../../src/model/types.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { memorySessions } from '../../../src/sessions/memory-sessions.js';
import { sessionScope } from '../../../src/sessions/types.js';
import { toolConversation } from '../../support/conversations.js';
import { makeIds } from '../../support/helpers.js';
import { testTools } from '../../support/stage-tools.js';

const page = (topic: string) => `${topic} page:\n` + `Details about ${topic} that go on. `.repeat(80);

/** system, task, then `rounds` tool rounds with a long result each. */
function conversation(rounds: number): ChatMessage[] {
  return toolConversation(rounds, { system: 'You are a research assistant.', task: 'Compare the cities.', page });
}

describe('rendered context: the context is rendered, not accumulated', () => {
  it('six-components "Context is rendered, not accumulated" (render_context: the last two results): sends the latest two tool rounds in full and shortens older results with a marker, keeping every role', () => {
    const messages = conversation(4);
    const rendered = renderTurnMessages(messages, turnContext());
    expect(rendered.map((message) => message.role)).toEqual(messages.map((message) => message.role));
    const tools = rendered.filter((message) => message.role === 'tool');
    for (const older of tools.slice(0, 2)) {
      expect(older.content.length).toBeLessThanOrEqual(700);
      expect(older.content).toContain(`${shortenedMarker} `);
      expect(older.content).toMatch(/^city \d page:\nDetails about/);
    }
    expect(tools.slice(2).map((message) => message.content)).toEqual([page('city 3'), page('city 4')]);
    // The transcript itself is untouched.
    expect(messages[3]!.content).toBe(page('city 1'));
  });

  it('returns the conversation itself when nothing is old or long enough, and the same shortened copy every turn', () => {
    const short = conversation(2);
    expect(renderTurnMessages(short, turnContext())).toBe(short);
    const context = turnContext({ recentRounds: 1, olderResultChars: 200 });
    const messages = conversation(3);
    const first = renderTurnMessages(messages, context);
    messages.push({ role: 'assistant', content: 'Let me think.' });
    const second = renderTurnMessages(messages, context);
    // Same objects: the journal stores a request as the messages it adds to the previous one.
    expect(second[3]).toBe(first[3]);
    expect(second[5]).toBe(first[5]);
    expect(second[7]).toBe(messages[7]);
  });

  it('keeps the closing mark of a result shown as untrusted data', () => {
    const wrapped = `<<<untrusted-data>>>\n${page('spam')}\n<<<end-untrusted-data>>>`;
    const messages = conversation(3);
    messages[3] = { ...(messages[3] as Extract<ChatMessage, { role: 'tool' }>), content: wrapped };
    const older = renderTurnMessages(messages, turnContext())[3]!;
    expect(older.content.startsWith('<<<untrusted-data>>>\n')).toBe(true);
    expect(older.content.endsWith('\n<<<end-untrusted-data>>>')).toBe(true);
    expect(older.content).toContain(shortenedMarker);
  });

  it('rejects settings that would keep nothing', () => {
    expect(() => turnContext({ recentRounds: 0 })).toThrow(/recentRounds/);
    expect(() => turnContext({ olderResultChars: 10 })).toThrow(/olderResultChars/);
  });

  it('in a ReAct run: each request is rendered from the state, session turns stay user/assistant messages, and state.messages keeps the whole transcript', async () => {
    const search = defineTool({
      name: 'search',
      description: 'Searches the web.',
      parameters: z.object({ q: z.string() }),
      execute: ({ q }) => page(q),
    });
    const call = (q: string) => ({ name: 'search', arguments: JSON.stringify({ q }) });
    const model = new ScriptedModel([
      { toolCalls: [call('paris')] },
      { toolCalls: [call('rome')] },
      { toolCalls: [call('oslo')] },
      { content: 'Oslo is the coldest.' },
    ]);
    const sessions = memorySessions();
    await sessions.appendTurn(sessionScope('trip'), {
      runId: 'run_0',
      task: 'Hello',
      answer: 'Hi! How can I help?',
      tools: [],
      at: 0,
    });
    const result = await runPipeline(
      reactPipeline({ session: { memory: { summarizer: 'extractive' } } }),
      { task: 'Which city is coldest?', session: 'trip' },
      { deps: { model, tools: testTools(search), ids: makeIds('run'), sessions } },
    );
    expect(result.answer).toBe('Oslo is the coldest.');
    const last = model.requests[3]!.messages;
    expect(last.slice(1, 3)).toEqual([
      { role: 'user', content: 'Hello', history: { part: 'task' } },
      {
        role: 'assistant',
        content: 'Hi! How can I help?',
        history: { part: 'answer', answer: 'Hi! How can I help?', completed: true },
      },
    ]);
    const tools = last.filter((message) => message.role === 'tool');
    expect(tools).toHaveLength(3);
    expect(tools[0]!.content).toContain(shortenedMarker);
    expect(tools.slice(1).map((message) => message.content)).toEqual([page('rome'), page('oslo')]);
    expect(
      result.state.messages.filter((message) => message.role === 'tool').map((message) => message.content),
    ).toEqual([page('paris'), page('rome'), page('oslo')]);
    // think({ context: false }) sends the whole conversation.
    const whole = new ScriptedModel([
      { toolCalls: [call('paris')] },
      { toolCalls: [call('rome')] },
      { toolCalls: [call('oslo')] },
      { content: 'Oslo.' },
    ]);
    await runPipeline(
      reactPipeline({ think: { context: false } }),
      { task: 'Which city is coldest?' },
      { deps: { model: whole, tools: testTools(search), ids: makeIds('run') } },
    );
    expect(
      whole.requests[3]!.messages.filter((message) => message.role === 'tool').map((message) => message.content),
    ).toEqual([page('paris'), page('rome'), page('oslo')]);
  });
});
