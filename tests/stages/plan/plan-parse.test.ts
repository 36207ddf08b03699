import { describe, expect, it } from 'vitest';
import { plan } from '../../../stages/plan/plan.js';
import { readJson } from '../../../stages/plan/plan-json.js';
import { planFromJson } from '../../../stages/plan/plan-parse.js';
import { ScriptedModel } from '../../../src/model/scripted-model.js';
import { makeCtx, makeState } from '../../support/helpers.js';
import { testTools } from '../../support/stage-tools.js';

const rules = { maxSteps: 8, tools: ['calculator', 'lookup'] };
const parse = (text: string) => {
  const json = readJson(text);
  return json.ok ? planFromJson(json.value, rules) : json;
};
const shape = (text: string) => {
  const parsed = parse(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.value.steps.map((step) => [step.id, step.description, step.dependsOn]);
};

describe('reading a plan the way real models write it', () => {
  it('agent-patterns Rust notes, the plan shape {"steps": ["a", "b"]}: a plain list of strings is a chain', () => {
    expect(shape('["a", "b", "c"]')).toEqual([
      ['s1', 'a', []],
      ['s2', 'b', ['s1']],
      ['s3', 'c', ['s2']],
    ]);
    expect(shape('{"steps": ["a", "b"]}')).toEqual([
      ['s1', 'a', []],
      ['s2', 'b', ['s1']],
    ]);
  });

  it('the old list of { description, status } is a chain; the statuses are ignored', () => {
    expect(
      shape('{"steps":[{"description":"a","status":"completed"},{"description":"b","status":"pending"}]}'),
    ).toEqual([
      ['s1', 'a', []],
      ['s2', 'b', ['s1']],
    ]);
  });

  it('the graph shape keeps ids, dependencies, tools and priorities, goal and reasoning', () => {
    const parsed = parse(
      '{"goal":"g","reasoning":"r","steps":[{"id":"a","description":"x","dependsOn":[],"tool":"Calculator","priority":2},{"id":"b","description":"y","depends_on":["a"]},{"id":3,"description":"z","dependsOn":"a"}]}',
    );
    expect(parsed).toMatchObject({ ok: true, value: { goal: 'g', reasoning: 'r' } });
    if (!parsed.ok) return;
    expect(parsed.value.steps).toEqual([
      { id: 'a', description: 'x', dependsOn: [], tool: 'calculator', priority: 2, status: 'pending', attempts: 0 },
      { id: 'b', description: 'y', dependsOn: ['a'], status: 'pending', attempts: 0 },
      { id: '3', description: 'z', dependsOn: ['a'], status: 'pending', attempts: 0 },
    ]);
  });

  it('fenced JSON, JSON inside prose, trailing commas and single quotes are recovered', () => {
    expect(shape('Here is the plan:\n```json\n{"steps": ["a", "b"]}\n```\nGood luck!')).toHaveLength(2);
    expect(shape('Sure. {"steps": ["a", "b"]} That is all.')).toHaveLength(2);
    expect(shape('{"steps": ["a", "b",],}')).toHaveLength(2);
    expect(shape("{'steps': ['a', 'b']}")).toHaveLength(2);
  });

  it('what cannot be recovered is named with the exact parse error', () => {
    expect(parse('{"steps": ["a" "b"]}')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^the reply is not valid JSON \(.+\)/),
    });
    expect(parse('I would start by thinking.')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/holds no JSON object or list/),
    });
  });

  it('a cycle is named as such, with the steps on it', () => {
    expect(
      parse(
        '{"steps":[{"id":"a","description":"x","dependsOn":["b"]},{"id":"b","description":"y","dependsOn":["a"]}]}',
      ),
    ).toMatchObject({ ok: false, problem: expect.stringContaining('steps a and b form a cycle') });
    expect(parse('{"steps":[{"id":"a","description":"x","dependsOn":["a"]}]}')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('step a depends on itself'),
    });
  });

  it('unknown and duplicate ids and unknown tools are refused, naming what exists', () => {
    expect(parse('{"steps":[{"id":"a","description":"x","dependsOn":["z"]}]}')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('step "a" depends on "z", which is not a step of the plan'),
    });
    expect(
      parse('{"steps":[{"id":"a","description":"x","dependsOn":[]},{"id":"a","description":"y","dependsOn":[]}]}'),
    ).toMatchObject({ ok: false, problem: expect.stringContaining('the step id "a" is used twice') });
    expect(parse('{"steps":[{"id":"a","description":"x","dependsOn":[],"tool":"search"}]}')).toMatchObject({
      ok: false,
      problem: expect.stringContaining(
        'names the tool "search", which does not exist: the tools are: calculator, lookup',
      ),
    });
  });
});

describe('plan stage repair turns for a graph problem', () => {
  it('a cycle gets a repair turn showing the problem; the repaired graph is used', async () => {
    const cycle =
      '{"steps":[{"id":"a","description":"x","dependsOn":["b"]},{"id":"b","description":"y","dependsOn":["a"]}]}';
    const fixed =
      '{"steps":[{"id":"a","description":"x","dependsOn":[]},{"id":"b","description":"y","dependsOn":["a"]}]}';
    const model = new ScriptedModel([{ content: cycle }, { content: fixed }]);
    const state = makeState();
    const ctx = makeCtx({ deps: { model, tools: testTools() } });
    await plan().execute(state, ctx);
    model.assertConsumed();
    expect(model.requests[1]!.messages.at(-1)!.content).toContain('steps a and b form a cycle');
    expect(state.plan).toMatchObject({ source: 'repaired', running: ['a'] });
    expect(ctx.events.find((event) => event.type === 'plan_repair')!.data).toMatchObject({
      attempt: 1,
      maxRepairs: 2,
      problem: expect.stringContaining('form a cycle'),
    });
    // Both calls count.
    expect(model.requests).toHaveLength(2);
  });

  it("the planner sees the run's facts and the session history under their own share", async () => {
    const model = new ScriptedModel([{ content: '["Add 10 to 42"]' }]);
    const state = makeState({ task: 'Add 10 to that' });
    state.context = { systemPrompt: 'sys', tools: [], facts: ['units: metric'] };
    state.history = {
      user: 'default',
      session: 's',
      summary: '',
      turns: [{ seq: 1, task: 'What is 6*7?', answer: '42', tools: [], runId: 'r0', at: 1 }],
      facts: [],
    };
    await plan().execute(state, makeCtx({ deps: { model } }));
    const system = model.requests[0]!.messages[0]!.content;
    expect(system).toContain('What the agent already knows');
    expect(system).toContain('- units: metric');
    expect(system).toContain('Turn 1 answer: 42');
    const none = new ScriptedModel([{ content: '["x"]' }]);
    await plan({ knowledgeTokens: 0 }).execute(state, makeCtx({ deps: { model: none } }));
    expect(none.requests[0]!.messages[0]!.content).not.toContain('What the agent already knows');
  });
});
