// The offline model and skills: when load_skill is offered and the task names a skill not loaded yet, it loads it
// first; the skill's text then stays out of the arithmetic rules, which read the calculator's results only.
import type { ChatMessage, ChatRequest, ToolCall } from './types.js';

const loadSkill = 'load_skill';

/** The call that loads the first skill the brief names (load_skill's description lists them), unless it was loaded. */
export function skillToLoad(request: ChatRequest, brief: string): ToolCall | undefined {
  const tool = (request.tools ?? []).find((candidate) => candidate.name === loadSkill);
  const listed = /The skills: (.+)\.$/.exec(tool?.description ?? '')?.[1];
  if (listed === undefined) return undefined;
  const loaded = new Set(loadedSkills(request.messages));
  const text = brief.toLowerCase();
  const name = listed.split(', ').find((skill) => !loaded.has(skill) && text.includes(skill.toLowerCase()));
  if (name === undefined) return undefined;
  return { id: `offline_call_${request.messages.length}`, name: loadSkill, arguments: JSON.stringify({ name }) };
}

/** The messages without load_skill's calls and results. */
export function withoutSkillTraffic(messages: readonly ChatMessage[]): ChatMessage[] {
  const ids = new Set<string>();
  const kept: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'assistant' && message.toolCalls?.some((call) => call.name === loadSkill)) {
      for (const call of message.toolCalls) if (call.name === loadSkill) ids.add(call.id);
      const others = message.toolCalls.filter((call) => call.name !== loadSkill);
      if (others.length > 0 || message.content !== '') kept.push({ ...message, toolCalls: others });
      continue;
    }
    if (message.role === 'tool' && ids.has(message.toolCallId)) continue;
    kept.push(message);
  }
  return kept;
}

function loadedSkills(messages: readonly ChatMessage[]): string[] {
  return messages.flatMap((message) =>
    message.role === 'assistant'
      ? (message.toolCalls ?? [])
          .filter((call) => call.name === loadSkill)
          .map((call) => (JSON.parse(call.arguments) as { name?: string }).name ?? '')
      : [],
  );
}
