// Tool names the model sees: `server__tool`, within the 64 characters every provider accepts.
import { createHash } from 'node:crypto';

const MAX_TOOL_NAME = 64;

/** `files__read_file`; characters providers reject become `_`, a name too long is cut and given a short hash. */
export function prefixedToolName(serverName: string, toolName: string): string {
  const full = `${serverName}__${toolName.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  // The hash of the original name keeps two long names with one beginning apart.
  const hash = createHash('sha256').update(toolName).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}
