// The executor tests' shared fixtures: a call with its arguments as text, and the error of a result expected to fail.
import type { ToolResult } from '../../src/engine/tool-port.js';

export const call = (name: string, args: string | object, id = 'call-1') => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

export function errorOf(result: ToolResult) {
  if (result.ok) throw new Error(`expected an error, got ok: ${result.content}`);
  return result.error;
}
