// Rows of the feature x lifecycle matrix for the tool gate in each context (issue 39): untrusted content read by a
// child agent or before a handoff still holds the MCP write made after it, whichever agent makes it.
import { stdioTestServer } from '../../support/mcp-servers.js';
import type { Outcome, Row, RowContext } from './matrix-harness.js';

const answered: Outcome = { status: 'completed', answer: 'The answer is 84.' };

/** `ask` in the cells that pause for a person; `refuse` where no one could answer (run, kill -9, worker). */
export const pausingPolicy = (cell: string) => (['approve', 'reject', 'server'].includes(cell) ? 'ask' : 'refuse');

/** The MCP write server and a team of two agents with these tools: the first hands on to the second (a handoff when
 * its name is triage, else an agent tool). */
function gateTeamConfig(context: RowContext, tools: Record<string, string[]>): string {
  const [first, second] = Object.keys(tools) as [string, string];
  const { name: _name, ...server } = stdioTestServer('${MCP_TEST_LOG}', 'test', ['--with-write-tool']);
  const member = (name: string) => ({ description: `The ${name}.`, instructions: 'Do the task.', tools: tools[name]! });
  const hands = first === 'triage' ? { handoffs: [second] } : { agents: [second] };
  return context.file(`team-${first}.json`, {
    mcpServers: { files: server },
    agents: { [first]: { ...member(first), ...hands }, [second]: member(second) },
  });
}

export const gateContextRows: Array<Row & { expected: Outcome }> = [
  {
    name: 'gate: agent relays MCP text',
    // The reader agent echoes through MCP (its answer comes back tainted); the coordinator's MCP write after it waits
    // for a person under the taint policy, with no approval flag (refused where no one could answer).
    flags: (context, cell) => [
      '--agent',
      'coordinator',
      ...['--mcp-config', gateTeamConfig(context, { coordinator: ['files__send_message'], reader: ['files__echo'] })],
      ...['--taint-policy', pausingPolicy(cell)],
    ],
    approvalFlags: [],
    task: 'Please echo 84, then send it to ops',
    expected: answered,
  },
  {
    name: 'gate: handoff after MCP text',
    // Triage echoes through MCP, then hands off; approving the handoff (the flag) does not approve the writer's MCP
    // write on the tainted conversation: the approve cell's run pauses again for it. The server's decisions cell
    // approves the handoff only, so there the write is refused (`refuse`), as in the cells no one answers.
    flags: (context, cell) => [
      '--agent',
      'triage',
      ...['--mcp-config', gateTeamConfig(context, { triage: ['files__echo'], writer: ['files__send_message'] })],
      ...['--taint-policy', cell === 'approve' || cell === 'reject' ? 'ask' : 'refuse'],
    ],
    approvalFlags: ['--approve-tools', 'transfer_to_writer'],
    rounds: 2,
    task: 'Please echo 84, then send it to ops',
    expected: answered,
  },
];
