// The run scope: the one async context, whose fields (a plan branch, a tool batch's caller) are set and left apart.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { currentBranch, currentScope, inBranch, outsideBranch } from '../../src/engine/run-scope.js';
import { asToolCaller, currentToolCaller, type ToolCaller } from '../../src/tools/call-scope.js';
import { makeClock, makeIds } from '../support/helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const caller: ToolCaller = {
  runId: 'run-1',
  pipeline: 'react',
  iteration: 2,
  deps: { clock: makeClock(), ids: makeIds() },
  usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, estimated: false },
  tokenLimit: undefined,
};

function sources(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('run scope', () => {
  it('keeps a branch and a tool caller apart: entering one keeps the other, leaving a branch keeps the caller', async () => {
    expect(currentScope()).toBeUndefined();
    await asToolCaller(caller, () =>
      inBranch({ step: 'b', parallel: true }, async () => {
        await Promise.resolve();
        expect(currentBranch()).toEqual({ step: 'b', parallel: true });
        expect(currentToolCaller()).toBe(caller);
        outsideBranch(() => {
          expect(currentBranch()).toBeUndefined();
          expect(currentToolCaller()).toBe(caller);
        });
        expect(currentBranch()?.step).toBe('b');
      }),
    );
    expect(currentToolCaller()).toBeUndefined();
  });

  it('is the only AsyncLocalStorage in the source', () => {
    const users = ['src', 'stages', 'pipelines', 'app']
      .flatMap(sources)
      .filter((file) => readFileSync(join(root, file), 'utf8').includes('new AsyncLocalStorage'));
    expect(users).toEqual(['src/engine/run-scope.ts']);
  });
});
