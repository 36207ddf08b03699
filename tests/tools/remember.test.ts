// remember writes the fact when the call runs, into the calling run's session (or the one it is bound to); the
// journal serves its result on replay, so the fact is not written again.
import { describe, expect, it } from 'vitest';
import { resumeRun, runPipeline } from '../../src/durable/durable-run.js';
import { replayRun } from '../../src/durable/replay.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';
import { memorySessions } from '../../src/sessions/memory-sessions.js';
import { sessionScope, type SessionStore } from '../../src/sessions/types.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { rememberTool } from '../../src/tools/remember.js';
import { reactPipeline } from '../../pipelines/index.js';

const scope = sessionScope('trip', 'ada');
const rememberCity = () => ({ toolCalls: [{ name: 'remember', arguments: '{"key":"city","value":"Lisbon"}' }] });

/** A session store that counts its fact writes. */
function counted(store: SessionStore): SessionStore & { writes: number } {
  const wrapped = Object.assign(Object.create(store) as SessionStore, { writes: 0 });
  wrapped.setFact = (where, fact) => {
    wrapped.writes += 1;
    return store.setFact(where, fact);
  };
  return wrapped;
}

describe('remember', () => {
  it("writes the fact into the calling run's session when the call runs; a replay does not write it again", async () => {
    const sessions = counted(memorySessions());
    const store = memoryStore();
    const seen: string[] = [];
    const onEvent = (event: RunEvent) => {
      // Before the next model call, the fact is in the store already: a crash from here on loses nothing.
      if (event.type === 'tool_result')
        void sessions.listFacts(scope).then((facts) => seen.push(...facts.map((f) => f.value)));
    };
    const pipeline = reactPipeline({ session: {} });
    const model = new ScriptedModel([rememberCity(), { content: 'Noted.' }]);
    const result = await runPipeline(
      pipeline,
      { task: 'I am going to Lisbon', session: 'trip', user: 'ada' },
      { store, deps: { model, tools: new ToolRegistry([rememberTool()]), sessions, onEvent } },
    );
    expect(result.status).toBe('completed');
    expect(seen).toEqual(['Lisbon']);
    expect(await sessions.listFacts(scope)).toMatchObject([{ key: 'city', value: 'Lisbon', sourceRun: result.runId }]);
    expect(sessions.writes).toBe(1);
    // The session as the run started (the app's replay gives it that): the remember call is served, not run.
    const asItStarted = counted(memorySessions());
    const replay = await replayRun(store, result.runId, { pipeline, deps: { sessions: asItStarted } });
    expect(replay.divergence).toBeUndefined();
    expect(replay.identical).toBe(true);
    expect(asItStarted.writes).toBe(0);
    expect(await asItStarted.listFacts(scope)).toEqual([]);
  });

  it('bound to a session, writes there from any run (an agent or handoff target of the turn)', async () => {
    const sessions = memorySessions();
    const model = new ScriptedModel([rememberCity(), { content: 'Noted.' }]);
    const tools = new ToolRegistry([rememberTool({ sessions, scope })]);
    await runPipeline(reactPipeline(), { task: 'I am going to Lisbon' }, { deps: { model, tools } });
    expect(await sessions.listFacts(scope)).toMatchObject([{ key: 'city', value: 'Lisbon' }]);
  });

  it('in a run that is no turn of a session, says so to the model and saves nothing', async () => {
    const sessions = memorySessions();
    const model = new ScriptedModel([rememberCity(), { content: 'I could not save it.' }]);
    const tools = new ToolRegistry([rememberTool()]);
    const result = await runPipeline(
      reactPipeline(),
      { task: 'I am going to Lisbon' },
      { deps: { model, tools, sessions } },
    );
    const toolMessage = result.state.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatch(/not a turn of one: nothing was saved/);
  });

  it('cut off inside its call by a crash, runs again by itself on resume (idempotent: the same key and value)', async () => {
    const sessions = counted(memorySessions());
    const store = memoryStore();
    const pipeline = reactPipeline({ session: {} });
    const input = { task: 'I am going to Lisbon', session: 'trip', user: 'ada' };
    // The first process writes the fact and never comes back from the call (as one killed there).
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const stalled = Object.assign(Object.create(sessions) as SessionStore, {
      setFact: (where: typeof scope, fact: Parameters<SessionStore['setFact']>[1]) =>
        sessions.setFact(where, fact).then(() => (entered(), new Promise<void>(() => undefined))),
    });
    const first = new ScriptedModel([rememberCity(), { content: 'never asked' }]);
    const tools = () => new ToolRegistry([rememberTool()]);
    void runPipeline(pipeline, input, {
      store,
      runId: 'run-remember',
      deps: { model: first, tools: tools(), sessions: stalled },
    });
    await inside;

    const events: RunEvent[] = [];
    const model = new ScriptedModel([{ content: 'Noted.' }]);
    const onEvent = (event: RunEvent) => events.push(event);
    const resumed = await resumeRun(store, 'run-remember', {
      pipeline,
      deps: { model, tools: tools(), sessions, onEvent },
      takeOver: true,
    });
    expect(resumed).toMatchObject({ status: 'completed', answer: 'Noted.' });
    expect(events.some((event) => event.type === 'call_in_doubt')).toBe(false);
    expect(sessions.writes).toBe(2);
    expect(await sessions.listFacts(scope)).toMatchObject([
      { key: 'city', value: 'Lisbon', sourceRun: 'run-remember' },
    ]);
  });
});
