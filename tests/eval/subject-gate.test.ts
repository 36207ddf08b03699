// An eval run's tool box notes each call for the graders and keeps the registry's per-run view, so the tool gate
// holds its calls as it holds any run's (a wrapper that dropped `forRun` let eval runs skip the gate).
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool, runPipeline, ToolRegistry } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { reactPipeline } from '../../pipelines/index.js';
import { noteToolCalls } from '../../src/eval/subject.js';
import type { CalledTool } from '../../src/eval/graders/types.js';

const sent: string[] = [];
const send = defineTool({
  name: 'send',
  description: 'Sends a note.',
  parameters: z.strictObject({ text: z.string() }),
  needsApproval: true,
  execute({ text }) {
    sent.push(text);
    return 'sent';
  },
});

describe('noteToolCalls', () => {
  it('keeps the tool gate: a needsApproval call is asked about and a rejected one never runs, and it is noted', async () => {
    const noted: CalledTool[] = [];
    const tools = noteToolCalls(new ToolRegistry([send]), noted);
    const asked: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'send', arguments: '{"text":"hi"}' }] },
      { content: 'not sent' },
    ]);
    const result = await runPipeline(
      reactPipeline(),
      { task: 'send hi' },
      {
        deps: {
          model,
          tools,
          approve: async (request) => {
            asked.push(request.tool);
            return { approve: false, message: 'no' };
          },
        },
      },
    );
    expect(asked).toEqual(['send']);
    expect(sent).toEqual([]);
    expect(noted).toEqual([{ name: 'send', arguments: { text: 'hi' } }]);
    expect(result.status).toBe('completed');
  });
});
