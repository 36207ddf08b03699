// A long MCP call's progress as run events: each `notifications/progress` of the call becomes a `tool_progress` event
// of the calling run (act's stage, the call's id), so the CLI's progress lines, SSE and the protocol streams show how
// far the call is while it runs. Live only: a replay is served the call's recorded result and reports no progress.
import type { Progress } from '@modelcontextprotocol/client';
import { currentToolCaller, wantToolCallers } from '../call-scope.js';

declare module '../../engine/stage.js' {
  interface RunEvents {
    /** A progress notification of a running MCP call: how far it is (`progress` of `total`, when the server knows). */
    tool_progress: {
      id: string;
      name: string;
      server: string;
      progress: number;
      total?: number;
      message?: string;
    };
  }
}

// An MCP tool reports to the run that calls it: act must keep the calling run in the tool batch's scope.
wantToolCallers();

/** What reports the progress of one call to the calling run's events; undefined outside a run (or with no id). Read
 * at the call's start: the SDK's notification handler runs outside the call's async context. */
export function progressEvents(
  callId: string | undefined,
  name: string,
  server: string,
): ((progress: Progress) => void) | undefined {
  const emit = currentToolCaller()?.emit;
  if (emit === undefined || callId === undefined) return undefined;
  return (progress) =>
    emit('tool_progress', () => ({
      id: callId,
      name,
      server,
      progress: progress.progress,
      ...(progress.total !== undefined && { total: progress.total }),
      ...(progress.message !== undefined && { message: progress.message }),
    }));
}
