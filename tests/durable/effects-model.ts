// The effects crash lab's model (effects-lab.test.ts): answers from the request alone, so every process gets the same
// replies. A run with the write tool calls it for line-1..line-N (numbered by the calls already in the conversation),
// then answers; a plan of three steps side by side, each writing part-K; a caller with the `writer` agent or the
// handoff to it calls that once, then answers.
import { sendReply, startChatServer, type ChatRequestBody, type ChatServer } from '../support/chat-server.js';
import type { ReplyOptions } from '../support/chat-bodies.js';

export async function startEffectsModel(lines: number): Promise<ChatServer> {
  const server = await startChatServer();
  server.handle(
    (request, response) => sendReply(request, response, replyTo(request.body, lines)),
    Number.MAX_SAFE_INTEGER,
  );
  return server;
}

const call = (id: string, name: string, args: object): ReplyOptions => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});

function replyTo(body: ChatRequestBody, lines: number): ReplyOptions {
  const system = body.messages.find((message) => message.role === 'system')?.content ?? '';
  if (system.startsWith('You are the planner')) {
    const steps = [1, 2, 3].map((part) => ({ id: `p${part}`, description: `Write part ${part}`, dependsOn: [] }));
    return { content: JSON.stringify({ goal: 'write', steps }) };
  }
  if (system.startsWith('You are the replanner'))
    return { content: JSON.stringify({ need_replan: false, reason: 'on track', new_steps: [] }) };
  const tools = (body.tools ?? []).map((tool) => tool.function.name);
  const calls = body.messages.flatMap((message) => message.tool_calls ?? []).map((each) => each.function.name);
  const write = tools.find((name) => name.endsWith('append_line'));
  const written = calls.filter((name) => name.endsWith('append_line')).length;
  const part = body.messages
    .map((message) => /Current step \((\d+) of \d+\)/.exec(message.content ?? '')?.[1])
    .find(Boolean);
  if (part !== undefined)
    return write !== undefined && written === 0
      ? call('call_1', write, { text: `part-${part}` })
      : { content: `part ${part} written` };
  for (const caller of ['writer', 'transfer_to_writer'])
    if (tools.includes(caller))
      return calls.includes(caller)
        ? { content: 'done' }
        : call('call_w', caller, caller === 'writer' ? { task: 'Write the lines.' } : {});
  if (write !== undefined && written < lines)
    return call(`call_${written + 1}`, write, { text: `line-${written + 1}` });
  return { content: `done: ${written} lines` };
}
