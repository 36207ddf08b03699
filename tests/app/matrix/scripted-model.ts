// A loopback Chat Completions server that answers arithmetic the way a model with tools would, from the request
// alone (stateless): the task's first call asks for a tool, the call after the tool's result answers with its number
// (the final-output call, with response_format, gets the answer's number as {"result": N}). Every process of a matrix row (CLI, serve, worker) may call it
// and gets the same answers. A closed gate holds the answering call, so a test can kill -9 a run mid-way.
import {
  sendReply,
  startChatServer,
  type ChatRequestBody,
  type ChatServer,
  type ReplyOptions,
} from '../../support/chat-server.js';

export interface ScriptedModel {
  url: string;
  server: ChatServer;
  /** While closed, a call that would give the final answer is held (never answered); `held` resolves at the first. */
  closeGate(): { held: Promise<void> };
  openGate(): void;
  close(): Promise<void>;
}

type Message = ChatRequestBody['messages'][number];
const planStep = (id: string, expression: string) => ({ id, description: `Compute ${expression}`, dependsOn: [] });
const numberIn = (text: string | null | undefined) => [...(text ?? '').matchAll(/-?\d+(?:\.\d+)?/g)].at(-1)?.[0];

/** The kill -9 column's write tool (kill-column.ts): called first in every conversation that offers it, its text the
 * conversation's task; then out of sight (its calls and results taken out), so the script reads as without it. */
const ledgerPrefix = 'ledger__';
const callsLedger = (message: Message) =>
  message.tool_calls?.some((call) => call.function.name.startsWith(ledgerPrefix));

function withoutLedger(body: ChatRequestBody): ChatRequestBody {
  // By position, not id: each reply numbers its calls from the start, so ids repeat in a conversation.
  let answering = false;
  const messages = body.messages.filter((message) => {
    if (message.role !== 'tool') answering = callsLedger(message) === true;
    return !answering;
  });
  return { ...body, messages };
}

/** The reply a careful model would give to these messages. */
export function scriptedReply(body: ChatRequestBody): ReplyOptions {
  const ledger = body.tools?.find((tool) => tool.function.name.startsWith(ledgerPrefix))?.function.name;
  const lastUser = body.messages.map((message) => message.role).lastIndexOf('user');
  if (
    ledger !== undefined &&
    body.response_format === undefined &&
    !body.messages.slice(lastUser + 1).some(callsLedger)
  )
    return {
      toolCalls: [
        // One line: the ledger writes a line a call.
        {
          name: ledger,
          arguments: JSON.stringify({
            text: `noted: ${String(body.messages[lastUser]?.content).replace(/\s+/g, ' ')}`,
          }),
        },
      ],
    };
  return replyWithoutLedger(withoutLedger(body));
}

function replyWithoutLedger(body: ChatRequestBody): ReplyOptions {
  const messages = body.messages;
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const task = String(messages[lastUser]?.content ?? '');
  const toolResult = messages.slice(lastUser + 1).find((message) => message.role === 'tool');
  // The final-output call: the work so far in one user message, answered as the schema's object.
  if (body.response_format?.type === 'json_schema')
    return {
      content: JSON.stringify({ result: Number(/answer is (-?\d+(?:\.\d+)?)/.exec(task)?.[1] ?? numberIn(task) ?? 0) }),
    };
  // The plan row: the planner splits 12 * 7 into two steps that need nothing from each other (they run side by
  // side), each step asks the calculator, the replanner keeps the plan, and the composer adds the step results.
  const system = String(messages[0]?.content ?? '');
  // The sub-plan row: the same two steps as the sub-plan of one step.
  const parts = [planStep('a', '12 * 3'), planStep('b', '12 * 4')];
  if (system.startsWith('You are the planner'))
    return {
      content: JSON.stringify({
        goal: task,
        steps: /sub-steps/.test(task)
          ? [{ id: 'p', description: 'Compute the parts', dependsOn: [], steps: parts }]
          : parts,
      }),
    };
  if (system.startsWith('You are the replanner'))
    return { content: JSON.stringify({ need_replan: false, reason: 'on track', new_steps: [] }) };
  if (system.startsWith('You write the final answer'))
    return {
      content: `The answer is ${[...task.matchAll(/Result: .*?(-?\d+)\.?$/gm)].reduce((sum, match) => sum + Number(match[1]), 0)}.`,
    };
  const step = /Current step \(\d+ of \d+\): Compute (.+)$/m.exec(task);
  if (step !== null && toolResult === undefined)
    return { toolCalls: [{ name: 'calculator', arguments: JSON.stringify({ expression: step[1] }) }] };
  const offered = (name: string) => body.tools?.find((tool) => tool.function.name.startsWith(name))?.function.name;
  // The taint rows: echo (an MCP result taints the context), then send it (a write), then answer with the echoed number.
  // A caller without the write tool hands the rest on to the agent that has it (a handoff), once.
  if (/\bsend it\b/i.test(task) && toolResult !== undefined) {
    const after = messages.slice(lastUser + 1);
    const called = (prefix: string) =>
      after.some((message) => message.tool_calls?.some((call) => call.function.name.startsWith(prefix)));
    const echoed = numberIn(String(toolResult.content ?? '')) ?? '0';
    if (offered('files__send_message') !== undefined && !called('files__send_message'))
      return { toolCalls: [{ name: 'files__send_message', arguments: JSON.stringify({ to: 'ops', text: echoed }) }] };
    const transfer = offered('transfer_to_');
    if (transfer !== undefined && !called('transfer_to_')) return { toolCalls: [{ name: transfer, arguments: '{}' }] };
    return { content: `The answer is ${echoed}.` };
  }
  // The elicitation row: the MCP tool that asks a person for the number, then the answer is its number.
  if (toolResult === undefined && /\bask for a number\b/i.test(task) && offered('ask__ask_number') !== undefined)
    return { toolCalls: [{ name: 'ask__ask_number', arguments: '{}' }] };
  // An agent that may echo does so first (a triage agent reads before it hands off).
  if (toolResult === undefined && /\becho\b/i.test(task) && offered('files__echo') !== undefined)
    return { toolCalls: [{ name: 'files__echo', arguments: JSON.stringify({ text: numberIn(task) ?? '0' }) }] };
  if (toolResult === undefined) {
    // A triage agent (handoffs offered, no calculator) transfers the run to its first handoff.
    const transfer = body.tools?.find((tool) => tool.function.name.startsWith('transfer_to_'));
    if (transfer !== undefined && !body.tools!.some((tool) => tool.function.name === 'calculator'))
      return { toolCalls: [{ name: transfer.function.name, arguments: '{}' }] };
    // A coordinator (agents offered as tools, no calculator) hands the whole task to its first agent.
    const agent = body.tools?.find(
      (tool) =>
        (tool.function.parameters as { properties?: Record<string, unknown> } | undefined)?.properties?.task !==
        undefined,
    );
    if (agent !== undefined && !body.tools!.some((tool) => tool.function.name === 'calculator'))
      return { toolCalls: [{ name: agent.function.name, arguments: JSON.stringify({ task }) }] };
    const addition = /add (\d+) to that/i.exec(task);
    // The session's earlier turns: as messages or rendered into the system prompt, the last answer given.
    const earlier = messages
      .slice(0, lastUser)
      .map((message: Message) => String(message.content ?? ''))
      .join('\n');
    const previous = [...earlier.matchAll(/answer is (-?\d+)/g)].at(-1)?.[1] ?? '0';
    const expression = addition ? `${previous} + ${addition[1]}` : (/what is (.+?)\??$/i.exec(task)?.[1] ?? '0');
    return { toolCalls: [{ name: 'calculator', arguments: JSON.stringify({ expression }) }] };
  }
  const result =
    numberIn(typeof toolResult.content === 'string' ? toolResult.content : JSON.stringify(toolResult.content)) ?? '0';
  return { content: `The answer is ${result}.` };
}

const answersTask = (body: ChatRequestBody) => {
  if (body.response_format !== undefined) return false;
  const { messages } = withoutLedger(body);
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  return messages.slice(lastUser + 1).some((message) => message.role === 'tool');
};

export async function startScriptedModel(): Promise<ScriptedModel> {
  const server = await startChatServer();
  let gate: { reached: () => void } | undefined;
  server.handle((request, response) => {
    if (gate !== undefined && answersTask(request.body)) {
      gate.reached();
      return; // held: the process calling is killed before an answer comes
    }
    sendReply(request, response, scriptedReply(request.body));
  }, Number.POSITIVE_INFINITY);
  return {
    url: server.url,
    server,
    closeGate() {
      let reached!: () => void;
      const held = new Promise<void>((resolve) => (reached = resolve));
      gate = { reached };
      return { held };
    },
    openGate: () => (gate = undefined),
    close: () => server.close(),
  };
}

/** A server whose every call fails with 503: the primary model of a fallback row. */
export async function startFailingModel(): Promise<ChatServer> {
  const server = await startChatServer();
  server.fail(503, { message: 'overloaded', times: Number.POSITIVE_INFINITY });
  return server;
}
