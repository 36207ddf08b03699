// act's retry events, a helper of act.ts: a call its tool's retry policy ran again comes back with the failed attempts
// on its result (src/tools/call-policy.ts); act reports each as `tool_retry` before the call's `tool_result`. Read from
// the result, so a replay, served the recorded result, reports the same retries without running any attempt again.
import type { StageContext } from '../../src/engine/stage.js';
import type { ToolResult } from '../../src/engine/tool-port.js';
import type { ToolCall } from '../../src/model/types.js';
import { shortText } from '../shared/text.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    tool_retry: {
      id: string;
      name: string;
      attempt: number;
      error: { kind: string; message: string };
      waitMs: number;
    };
  }
}

export function emitRetries(ctx: StageContext, call: ToolCall, result: ToolResult, previewChars: number): void {
  for (const retry of result.retries ?? []) {
    ctx.emit('tool_retry', () => ({
      id: call.id,
      name: call.name,
      attempt: retry.attempt,
      error: { kind: retry.error.kind, message: shortText(retry.error.message, previewChars) },
      waitMs: Math.round(retry.waitMs),
    }));
  }
}
