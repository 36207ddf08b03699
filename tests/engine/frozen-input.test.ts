// state.input is fixed once the loop starts: setup may still redact the task, a later write fails with a clear error.
import { describe, expect, it } from 'vitest';
import { definePipeline } from '../../src/engine/pipeline.js';
import { runPipeline } from '../../src/engine/runner.js';
import { StageloopError } from '../../src/common/stageloop-error.js';

describe('state.input once the run starts', () => {
  it('a stage writing input.task in the loop fails the run with an error naming the field; setup could still change it', async () => {
    const pipeline = definePipeline({
      name: 'demo',
      setup: [
        {
          name: 'redact',
          execute: (state) => void (state.input.task = state.input.task.replace('secret', '[removed]')),
        },
      ],
      iteration: [{ name: 'rewrite', execute: (state) => void (state.input.task = 'something else') }],
      maxIterations: 2,
    });
    const result = await runPipeline(pipeline, { task: 'tell me the secret' });
    expect(result.status).toBe('failed');
    expect(result.stopReason.message).toBe(
      `stage "rewrite" failed: state.input.task is read-only once the run's loop has started: keep what a stage derives from the input in its own slot`,
    );
    expect(result.error?.cause).toBeInstanceOf(StageloopError);
    expect(result.state.input.task).toBe('tell me the [removed]');
  });

  it("options are frozen as a copy: the caller's object is untouched and a stage cannot change them", async () => {
    const options = { facts: ['the sky is blue'] };
    const pipeline = definePipeline({
      name: 'demo',
      iteration: [{ name: 'add-fact', execute: (state) => void (state.input.options!.facts as string[]).push('x') }],
      maxIterations: 1,
    });
    const result = await runPipeline(pipeline, { task: 't', options });
    expect(result.status).toBe('failed');
    expect(result.stopReason.message).toMatch(/stage "add-fact" failed: .*(not extensible|read only)/);
    options.facts.push('the caller may still change its own object');
    expect(options.facts).toHaveLength(2);
  });
});
