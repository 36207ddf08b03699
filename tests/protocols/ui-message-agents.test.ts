// An agent called as a tool inside a run streamed as UI messages: its events are reasoning lines, not the caller's
// parts (its own approval question would have been a second approval card next to the one the calling act asks).
import { describe, expect, it } from 'vitest';
import { ChunkWriter } from '../../src/server/protocols/ui-message-stream.js';
import type { RunEvent } from '../../src/engine/stage.js';

let seq = 0;
function event(type: string, data: unknown, extra: Partial<RunEvent> = {}): RunEvent {
  return {
    runId: 'caller',
    seq: ++seq,
    zone: 'iteration',
    iteration: 1,
    at: 0,
    stage: 'act',
    type,
    data,
    ...extra,
  } as RunEvent;
}
const child = { agent: 'researcher', runId: 'caller.call_1', iteration: 1 } as const;

describe('UI message stream: an agent inside the run', () => {
  it("streams the child run as reasoning lines and the caller's approval question once", () => {
    const writer = new ChunkWriter();
    const chunks = [
      event('tool_call', { id: 'call_1', name: 'researcher', arguments: '{"task":"look it up"}' }),
      event('text_delta', { text: 'I will search' }, { ...child, stage: 'think' }),
      event('tool_call', { id: 'call_9', name: 'search', arguments: '{"q":"x"}' }, child),
      event(
        'approval_requested',
        { id: 'call_9', tool: 'search', arguments: '{"q":"x"}', reason: 'needs approval' },
        { ...child, stage: 'approval' },
      ),
      event('approval_requested', {
        id: 'call_1/call_9',
        tool: 'search',
        arguments: '{"q":"x"}',
        reason: 'needs approval',
        agent: 'researcher',
      }),
    ].flatMap((item) => writer.chunksOf(item));
    const approvals = chunks.filter((chunk) => chunk.type === 'tool-approval-request');
    expect(approvals).toEqual([
      { type: 'tool-approval-request', approvalId: 'call_1/call_9', toolCallId: 'call_1/call_9' },
    ]);
    const toolParts = chunks
      .filter((chunk) => chunk.type === 'tool-input-available')
      .map((chunk) => (chunk as unknown as { toolCallId: string }).toolCallId);
    expect(toolParts).toEqual(['call_1', 'call_1/call_9']);
    expect(chunks.some((chunk) => chunk.type === 'text-delta' || chunk.type === 'text-start')).toBe(false);
    const lines = chunks.flatMap((chunk) =>
      chunk.type === 'reasoning-delta' ? [(chunk as unknown as { delta: string }).delta] : [],
    );
    expect(lines).toContain('researcher: Calling search({"q":"x"})');
    expect(lines).toContain('researcher: Waiting for approval of search (call_9)');
    // One step: the child's iterations do not open steps of the caller's message.
    expect(chunks.filter((chunk) => chunk.type === 'start-step')).toHaveLength(1);
  });
});
