// Sessions through whole pipelines in this process: compaction at the budget (a loopback model's summary, and the
// extractive one with no call), fact selection past the budget, and two users' rendered context.
import { describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { OfflineModel } from '../../src/model/offline-model.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { ModelError } from '../../src/model/types.js';
import { testTools } from '../support/stage-tools.js';
import { selectFacts } from '../../src/sessions/fact-selection.js';
import { memorySessions } from '../../src/sessions/memory-sessions.js';
import { compactionInstructions, compactionRequest, summaryMessageLabel } from '../../src/sessions/render.js';
import type { SessionStore } from '../../src/sessions/types.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { planExecuteReplanPipeline, reactPipeline } from '../../pipelines/index.js';
import { useLoopbackServer } from '../support/loopback-model.js';

const long = (topic: string) => `${topic}: ${'a fairly long sentence that fills the history with words '.repeat(4)}`;

describe('pipelines with a session', () => {
  const loopback = useLoopbackServer();

  it('adds history and memory as list entries only when a session is given', () => {
    expect(reactPipeline({ guards: false }).setup.map((stage) => stage.name)).toEqual(['context']);
    const withSession = reactPipeline({ session: {}, guards: false });
    expect(withSession.setup.map((stage) => stage.name)).toEqual(['history', 'context']);
    expect(withSession.finalize.map((stage) => stage.name)).toEqual(['summarize', 'memory']);
    expect(planExecuteReplanPipeline({ session: {}, guards: false }).setup.map((stage) => stage.name)).toEqual([
      'history',
      'context',
      'plan',
    ]);
  });

  it('past the budget the oldest turns are folded by one model call in finalize; the next turn answers from the summary', async () => {
    const sessions = memorySessions();
    const pipeline = reactPipeline({ session: { memory: { budgetTokens: 120 } } });
    const events: RunEvent[] = [];
    const deps = {
      model: loopback.model(),
      tools: new ToolRegistry([]),
      sessions,
      onEvent: (event: RunEvent) => events.push(event),
    };
    const input = (task: string) => ({ task, session: 'trip', user: 'ada' });
    loopback.server.replyWith({ content: long('Lisbon is the destination') });
    await runPipeline(pipeline, input('Where am I going?'), { deps });
    expect(events.some((event) => event.type === 'session_compacted')).toBe(false);
    loopback.server.replyWith({ content: long('You leave on Friday') });
    loopback.server.replyWith({ content: 'The trip goes to Lisbon.' });
    const second = await runPipeline(pipeline, input('When do I leave?'), { deps });
    const compaction = loopback.server.requests[2]!.body.messages;
    expect(compaction[0]!.content).toBe(compactionInstructions);
    // The folded turn as messages (its answer an assistant message), then the request.
    expect(compaction.slice(1).map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(compaction[1]!.content).toBe('Where am I going?');
    expect(compaction[2]!.content).toMatch(/^Lisbon is the destination/);
    expect(compaction[3]!.content).toBe(compactionRequest);
    expect(second.state.memory?.compaction).toMatchObject({ folded: [1], summarizer: 'model' });
    expect(second.state.memory!.compaction!.tokensBefore).toBeGreaterThan(120);
    expect(events.find((event) => event.type === 'session_compacted')?.data).toMatchObject({
      folded: 1,
      kept: 1,
      summarizer: 'model',
    });
    const stored = await sessions.load({ user: 'ada', session: 'trip' });
    expect(stored.summary).toBe('The trip goes to Lisbon.');
    expect(stored.turns.map((turn) => turn.seq)).toEqual([2]);
    loopback.server.replyWith({ content: 'You are going to Lisbon.' });
    const third = await runPipeline(pipeline, input('Remind me where I am going.'), { deps });
    const messages = loopback.server.requests[3]!.body.messages.slice(1).map((message) => [
      message.role,
      message.content,
    ]);
    expect(messages).toEqual([
      ['assistant', `${summaryMessageLabel}\nThe trip goes to Lisbon.`],
      ['user', 'When do I leave?'],
      ['assistant', long('You leave on Friday')],
      ['user', 'Remind me where I am going.'],
    ]);
    expect(third.answer).toBe('You are going to Lisbon.');
    loopback.server.assertConsumed();
  });

  it('the extractive summarizer folds whole turns with no model call (a scripted model fails on an extra one)', async () => {
    const sessions = memorySessions();
    const pipeline = reactPipeline({ session: { memory: { budgetTokens: 120, summarizer: 'extractive' } } });
    const model = new ScriptedModel([
      { content: long('first') },
      { content: long('second') },
      { content: long('third') },
    ]);
    const deps = { model, tools: new ToolRegistry([]), sessions };
    for (const task of ['one?', 'two?', 'three?']) await runPipeline(pipeline, { task, session: 's' }, { deps });
    const stored = await sessions.load({ user: 'default', session: 's' });
    expect(model.requests).toHaveLength(3);
    expect(stored.turns.map((turn) => turn.seq)).toEqual([3]);
    expect(stored.summary.split('\n').map((line) => line.slice(0, 24))).toEqual([
      '- Turn 1: one? Answer: f',
      '- Turn 2: two? Answer: s',
    ]);
  });

  it('the offline model writes no summary: memory folds extractively and says why', async () => {
    const sessions = memorySessions();
    const pipeline = reactPipeline({ session: { memory: { budgetTokens: 60 } } });
    const model = new ScriptedModel([{ content: long('first') }, { content: long('second') }]);
    await runPipeline(pipeline, { task: 'one?', session: 's' }, { deps: { model, sessions } });
    const second = await runPipeline(
      pipeline,
      { task: 'two?', session: 's' },
      { deps: { model: new OfflineModel(), sessions } },
    );
    expect(second.state.memory?.compaction).toMatchObject({
      summarizer: 'extractive',
      modelError: expect.stringContaining('does not write conversation summaries'),
    });
    expect((await sessions.load({ user: 'default', session: 's' })).summary).toMatch(/^- Turn 1: one\? Answer: first/);
  });

  it('nothing of the conversation is lost: a cancelled turn is kept with its status, a failed one with its partial answer, and the next turn reads both', async () => {
    const sessions = memorySessions();
    const scope = { user: 'default', session: 's' };
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const cancelled = await runPipeline(
      reactPipeline({ session: {} }),
      { task: 'x', session: 's' },
      { deps: { model: new ScriptedModel([]), sessions }, signal: controller.signal },
    );
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.answer).toMatch(/^I could not finish this task: the run was cancelled/);
    expect((await sessions.load(scope)).turns).toEqual([
      {
        seq: 1,
        runId: cancelled.runId,
        task: 'x',
        answer: cancelled.answer,
        tools: [],
        at: expect.any(Number),
        status: 'cancelled',
      },
    ]);
    // A model that stops answering after one tool round: the run fails, its partial answer is kept with the turn.
    const broken = new ScriptedModel([
      { toolCalls: [{ name: 'calculator', arguments: '{"expression":"6 * 7"}' }] },
      new ModelError('server', 'the server went away', { retryable: false }),
    ]);
    const failed = await runPipeline(
      reactPipeline({ session: {} }),
      { task: 'What is 6 * 7?', session: 's' },
      { deps: { model: broken, tools: testTools(), sessions } },
    );
    expect(failed.status).toBe('failed');
    const kept = (await sessions.load(scope)).turns[1]!;
    expect(kept).toMatchObject({ seq: 2, task: 'What is 6 * 7?', status: 'failed', tools: ['calculator(6 * 7) → 42'] });
    expect(kept.answer).toBe(failed.answer ?? '');
    const next = new ScriptedModel([{ content: 'ok' }]);
    await runPipeline(
      reactPipeline({ session: {} }),
      { task: 'and now?', session: 's' },
      { deps: { model: next, sessions } },
    );
    const seen = next.requests[0]!.messages.map((message) => `${message.role}: ${message.content}`);
    expect(seen).toContain('user: x');
    expect(seen).toContain(`assistant: (This turn was cancelled; its partial answer follows.)\n${cancelled.answer}`);
    expect(seen).toContain('user: What is 6 * 7?');
    expect(seen.some((line) => line.startsWith('assistant: (This turn was failed'))).toBe(true);
  });

  it('two users with the same session name: each one’s context shows only their own turns and facts', async () => {
    const sessions: SessionStore = memorySessions();
    await sessions.appendTurn(
      { user: 'ann', session: 'notes' },
      { runId: 'r', task: 'ann task', answer: 'ann answer', tools: [], at: 1 },
    );
    await sessions.setFact(
      { user: 'ann', session: 'notes' },
      { key: 'pin', value: '1234', sourceRun: 'r', updated: 1 },
    );
    await sessions.setFact(
      { user: 'ben', session: 'notes' },
      { key: 'colour', value: 'green', sourceRun: 'r', updated: 1 },
    );
    const model = new ScriptedModel([{ content: 'ok' }, { content: 'ok' }]);
    const pipeline = reactPipeline({ session: {} });
    await runPipeline(pipeline, { task: 'hi', session: 'notes', user: 'ben' }, { deps: { model, sessions } });
    await runPipeline(pipeline, { task: 'hi', session: 'notes', user: 'ann' }, { deps: { model, sessions } });
    const [ben, ann] = model.requests.map((request) =>
      request.messages.map((message) => `${message.role}: ${message.content}`).join('\n'),
    );
    expect(ben).toContain('- colour: green');
    expect(ben).not.toMatch(/ann|1234/);
    expect(ann).toContain('- pin: 1234');
    expect(ann).toContain('user: ann task\nassistant: ann answer');
    expect(ann).not.toContain('green');
  });
});

describe('selectFacts', () => {
  const fact = (key: string, value: string, updated: number) => ({ key, value, sourceRun: 'r', updated });

  it('all facts while they fit; past the budget the ones sharing words with the task, then the newest', async () => {
    const facts = [
      fact('city', 'Lisbon', 1),
      fact('unit', 'centimetres for every length', 2),
      fact('pet', 'a cat called Tom', 3),
      fact('tea', 'green, no sugar', 4),
    ];
    expect(await selectFacts(facts, 'anything', 1_000)).toHaveLength(4);
    // Room for about one fact: the one sharing "length" and "unit" with the task wins over newer ones.
    expect(await selectFacts(facts, 'What length unit should I use?', 10)).toEqual([
      'unit: centimetres for every length',
    ]);
    // No shared words: the newest that fit, shown in key order.
    expect(await selectFacts(facts, 'Anything else?', 16)).toEqual(['pet: a cat called Tom', 'tea: green, no sugar']);
    expect(await selectFacts(facts, 'nothing shared', 0)).toEqual([]);
  });
});
