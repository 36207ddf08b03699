// A loopback model that follows a script written in the task, statelessly (every process of a test may call it):
// "do: remember unit=cm; calc 1+1" makes one call per action, in order, counting the tool results after the
// task, then answers "Done."; "plan: a[do: ...] b[do: ...]" is the planner's plan (steps side by side), and
// "plan-seq: ..." the same with each step after the one before. A plan step follows its own description's script.
import {
  sendReply,
  startChatServer,
  type ChatRequestBody,
  type ChatServer,
  type ReplyOptions,
} from '../support/chat-server.js';

type Message = ChatRequestBody['messages'][number];

function actionCall(action: string): ReplyOptions {
  const remember = /^remember ([^=]+)=(.*)$/s.exec(action);
  if (remember !== null)
    return { toolCalls: [{ name: 'remember', arguments: JSON.stringify({ key: remember[1], value: remember[2] }) }] };
  return {
    toolCalls: [{ name: 'calculator', arguments: JSON.stringify({ expression: action.replace(/^calc /, '') }) }],
  };
}

function planOf(task: string): ReplyOptions {
  const sequential = task.startsWith('plan-seq:');
  const steps = [...task.matchAll(/(\w+)\[([^\]]*)\]/g)].map((match, index, all) => ({
    id: match[1]!,
    description: match[2]!,
    dependsOn: sequential && index > 0 ? [all[index - 1]![1]!] : [],
  }));
  return { content: JSON.stringify({ goal: task, steps }) };
}

/** The reply the script asks for, from the request alone. */
export function scriptReply(body: ChatRequestBody): ReplyOptions {
  const messages: Message[] = body.messages;
  const system = String(messages[0]?.content ?? '');
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const task = String(messages[lastUser]?.content ?? '');
  if (system.startsWith('You are the planner')) return planOf(task);
  if (system.startsWith('You are the replanner'))
    return { content: JSON.stringify({ need_replan: false, reason: 'on track', new_steps: [] }) };
  if (system.startsWith('You write the final answer')) return { content: 'Done.' };
  const script = /Current step \(\d+ of \d+\): (.+)$/m.exec(task)?.[1] ?? task;
  const actions = (/do: (.*)$/s.exec(script)?.[1] ?? '')
    .split(';')
    .map((action) => action.trim())
    .filter((action) => action !== '');
  const done = messages.slice(lastUser + 1).filter((message) => message.role === 'tool').length;
  return done < actions.length ? actionCall(actions[done]!) : { content: 'Done.' };
}

export async function startScriptModel(): Promise<ChatServer> {
  const server = await startChatServer();
  server.handle((request, response) => sendReply(request, response, scriptReply(request.body)), Infinity);
  return server;
}
