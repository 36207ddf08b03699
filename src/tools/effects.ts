// What tools do to the world and whether their results bring untrusted text: the facts the taint policy decides on.
import type { Tool } from './define-tool.js';

/** A tool that declares nothing is taken to write: a side effect nobody declared is still a side effect. */
export function effectsOf(tool: Tool | undefined): 'none' | 'read' | 'write' {
  return tool?.effects ?? 'write';
}

/** True when the tools could ever trip a taint policy: one whose results taint and one that writes. */
export function taintCanMatter(tools: readonly Tool[]): boolean {
  return tools.some((tool) => tool.taints === true) && tools.some((tool) => effectsOf(tool) === 'write');
}
