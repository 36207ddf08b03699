// The workspace slot's type (a leaf: the workspace and skills stages, and show, read it).
import type {} from '../../src/engine/state.js';

/** A context file as the run was given it: its text read when the run was made (recorded with the run). */
export interface ContextFile {
  /** As shown: relative to the working folder when inside it, else absolute. */
  path: string;
  text: string;
  /** `project`: inside the project (up to the folder holding .git); `outside`: screened and shown as data. */
  origin: 'project' | 'outside';
}

/** What the model is told of a skill before it loads one. */
export interface SkillSummary {
  name: string;
  description: string;
}

/** What the workspace stage put into the system prompt, and the skills the model loaded since. */
export interface WorkspaceSlot {
  files: Array<{ path: string; origin: ContextFile['origin']; chars: number; shown: number; flagged?: string[] }>;
  skills: string[];
  /** Skills loaded with load_skill, in order (the skills stage). */
  loaded: string[];
}

declare module '../../src/engine/state.js' {
  interface StageSlots {
    workspace: WorkspaceSlot;
  }
}
