// Stages that respect their dependencies (the eight-stage document): a pipeline assembled without the tool stage is a
// tool-less agent; a stage that cannot work without a port fails when the run is assembled, naming it; a stage whose
// port is optional is skipped with a warning event.
import { describe, expect, it } from 'vitest';
import { reactPipeline } from '../../pipelines/react.js';
import { planExecuteReplanPipeline } from '../../pipelines/plan-execute-replan.js';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import type { RunEvent } from '../../src/engine/stage.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import { context, summarize, think } from '../../stages/index.js';
import { useLoopbackServer } from '../support/loopback-model.js';
import { testTools } from '../support/stage-tools.js';

const loopback = useLoopbackServer();

describe('stages that respect their dependencies', () => {
  it('eight-stage "A simple response agent with no tools just gets assembled without the tool stage": think offers no tools when the pipeline has no act', async () => {
    loopback.server.replyWith({ content: 'Hello there.' });
    const responder = definePipeline({ name: 'responder', setup: [context()], iteration: [think()], maxIterations: 2 });
    const events: RunEvent[] = [];
    const result = await runPipeline(
      responder,
      { task: 'Say hello.' },
      { deps: { model: loopback.model(), tools: testTools(), onEvent: (event) => events.push(event) } },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'Hello there.' });
    expect(loopback.server.requests[0]!.body.tools).toBeUndefined();
    // The system prompt lists no tools either.
    expect(events.find((event) => event.type === 'context_rendered')?.data).toMatchObject({ tools: [] });
  });

  it('the same tools are offered when the pipeline has act (react, and plan steps whose act runs per step)', async () => {
    loopback.server.replyWith({ content: 'Done.' });
    await runPipeline(
      reactPipeline(),
      { task: 'Say hello.' },
      { deps: { model: loopback.model(), tools: testTools() } },
    );
    const offered = (loopback.server.requests[0]!.body.tools as Array<{ function: { name: string } }>) ?? [];
    expect(offered.map((tool) => tool.function.name)).toContain('calculator');
    loopback.server.replyWith({ content: '{"steps":[{"id":"s1","description":"say hello"}]}' });
    loopback.server.replyWith({ content: 'Hello.' });
    loopback.server.replyWith({ content: 'Hello.' });
    await runPipeline(
      planExecuteReplanPipeline(),
      { task: 'Say hello.' },
      { deps: { model: loopback.model(), tools: testTools() } },
    );
    const stepRequest = loopback.server.requests.find(
      (request) => request.body.tools !== undefined && request !== loopback.server.requests[0],
    );
    expect(stepRequest).toBeDefined();
  });

  it('eight-stage "dependencies injected so partial assembly works": think without a model fails at assembly, in one line naming deps.model, before any stage runs', async () => {
    const events: RunEvent[] = [];
    const run = runPipeline(
      reactPipeline(),
      { task: 'hi' },
      { deps: { tools: testTools(), onEvent: (event) => events.push(event) } },
    );
    await expect(run).rejects.toThrow(StageloopError);
    const error = (await run.catch((thrown: unknown) => thrown)) as StageloopError;
    expect(error.code).toBe('config');
    expect(error.message).toBe(
      `pipeline "react": stage "think" needs deps.model, which this run was not given: pass model in runPipeline's deps, or remove the stage`,
    );
    expect(error.message).not.toContain('\n');
    expect(events).toEqual([]);
  });

  it('the model needs of wrapped stages reach assembly too (an output schema, a planner, a model-less summary is fine)', async () => {
    await expect(runPipeline(planExecuteReplanPipeline(), { task: 'hi' }, {})).rejects.toThrow(
      /stage "plan" needs deps\.model/,
    );
    // summarize alone composes without a model: a pipeline of stages that need none runs.
    const quiet = definePipeline({ name: 'quiet', iteration: [summarize()], maxIterations: 1 });
    await expect(runPipeline(quiet, { task: 'hi' }, {})).resolves.toMatchObject({ runId: expect.any(String) });
  });

  it('eight-stage "Anything not injected is simply skipped": history and memory without a session store skip with stage_skipped, and the turn is answered', async () => {
    loopback.server.replyWith({ content: 'Hi again.' });
    const events: RunEvent[] = [];
    const result = await runPipeline(
      reactPipeline({ session: {} }),
      { task: 'Hello?', session: 'chat-1' },
      { deps: { model: loopback.model(), onEvent: (event) => events.push(event) } },
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'Hi again.' });
    const skipped = events.filter((event) => event.type === 'stage_skipped');
    expect(skipped.map((event) => [event.stage, event.data.missing])).toEqual([
      ['history', 'deps.sessions'],
      ['memory', 'deps.sessions'],
    ]);
    expect(skipped[0]!.data.fix).toMatch(/deps\.sessions/);
  });
});
