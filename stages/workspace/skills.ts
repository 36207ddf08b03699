// skills (after act): reads turn.results (each load_skill call that succeeded); writes workspace.loaded and reports
// `skill_loaded`; returns no signal. A replay serves the calls from the journal, so it reports the same skills.
import type { Stage } from '../../src/engine/stage.js';
import type {} from './workspace-slot.js';
import { loadSkillToolName } from '../../src/tools/skills.js';

declare module '../../src/engine/stage.js' {
  interface RunEvents {
    skill_loaded: { name: string };
  }
}

export function skills(): Stage {
  return {
    name: 'skills',
    execute(state, ctx) {
      for (const { call, result } of state.turn.results) {
        if (call.name !== loadSkillToolName || !result.ok) continue;
        const name = skillNameOf(call.arguments);
        if (name === undefined) continue;
        const slot = (state.workspace ??= { files: [], skills: [], loaded: [] });
        if (!slot.loaded.includes(name)) slot.loaded.push(name);
        ctx.emit('skill_loaded', { name });
      }
    },
  };
}

function skillNameOf(text: string): string | undefined {
  try {
    const name = (JSON.parse(text) as { name?: unknown }).name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}
