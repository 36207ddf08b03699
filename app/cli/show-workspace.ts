// `show`'s lines about what the run was given: its context files (where from, cut to the budget or not, flagged) and
// its skills (which the model loaded), read from the run's last checkpoint.
import type { WorkspaceSlot } from '../../stages/workspace/workspace-slot.js';

export function workspaceLines(state: unknown): string[] {
  const slot = (state as { workspace?: WorkspaceSlot } | undefined)?.workspace;
  if (slot === undefined) return [];
  const lines: string[] = [];
  if (slot.files.length > 0)
    lines.push(
      `context files: ${slot.files
        .map((file) => {
          const notes = [
            file.origin,
            ...(file.shown < file.chars ? [`cut to ${file.shown} of ${file.chars} characters`] : []),
            ...(file.flagged !== undefined ? [`flagged: ${file.flagged.join(', ')}`] : []),
          ];
          return `${file.path} (${notes.join(', ')})`;
        })
        .join(' · ')}`,
    );
  if (slot.skills.length > 0)
    lines.push(
      `skills: ${slot.skills.map((name) => (slot.loaded.includes(name) ? `${name} (loaded)` : name)).join(' · ')}`,
    );
  return lines;
}
