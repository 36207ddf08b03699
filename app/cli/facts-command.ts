// `stageloop facts [list|set|delete] --session NAME [--user ID] [--json]`: the durable facts of one session.
import { parseFlags } from './args.js';
import { StageloopError } from '../../src/common/stageloop-error.js';
import type { CommandIo, CommandModule } from './command.js';
import { openSession } from './session-setup.js';
import { terminalSafe } from './terminal-text.js';
import { detectInjection } from '../../stages/guards/injection/injection-detector.js';

export const factsUsage = `Usage: stageloop facts [list|set KEY VALUE|delete KEY] --session NAME [--user ID] [--json]

  list (default)   the session's facts: key, value, the run that set it, when
  set KEY VALUE    store or update a fact (source run "cli")
  delete KEY       remove a fact`;

export const facts: CommandModule = { usage: () => factsUsage, run: factsCommand };

export async function factsCommand(argv: readonly string[], io: CommandIo): Promise<number | 'help'> {
  const options = {
    session: { type: 'string' },
    store: { type: 'string' },
    user: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values, positionals } = parseFlags('facts', argv, options);
  if (values.help) return 'help';
  const { env, ...streams } = io;
  const [action = 'list', ...rest] = positionals;
  const arity: Record<string, number> = { list: 0, set: 2, delete: 1 };
  if (arity[action] === undefined)
    throw new StageloopError('usage', `stageloop facts knows list, set and delete, got "${action}"`);
  if (rest.length !== arity[action])
    throw new StageloopError(
      'usage',
      `stageloop facts ${action} takes ${arity[action]} argument(s), got ${rest.length}: ${factsUsage.split('\n')[0]}`,
    );
  if (values.session === undefined) throw new StageloopError('usage', `stageloop facts ${action} needs --session NAME`);
  const opened = await openSession(
    { session: values.session, ...(values.user ? { user: values.user } : {}) },
    env,
    values.store,
  );
  try {
    const { sessions, scope } = opened;
    const where = `session "${scope.session}" of user "${scope.user}"`;
    if (action === 'set') {
      // A fact reaches the model on every later turn: one that reads as an order to it is not stored.
      const detection = detectInjection(`${rest[0]!}: ${rest[1]!}`);
      if (detection.detected) {
        const rules = [...new Set(detection.matches.map((match) => match.rule))].join(', ');
        throw new StageloopError(
          'usage',
          `fact "${terminalSafe(rest[0]!.trim())}" looks like a prompt injection (${rules}), so it was not stored: facts reach the model on every turn of the session; store plain information`,
        );
      }
      await sessions.setFact(scope, { key: rest[0]!, value: rest[1]!, sourceRun: 'cli', updated: Date.now() });
      streams.stderr.write(`stored fact "${terminalSafe(rest[0]!.trim())}" in ${where}\n`);
      return 0;
    }
    if (action === 'delete') {
      if (!(await sessions.exists(scope)))
        throw new StageloopError(
          'not_found',
          `there is no ${where} in ${opened.file}: nothing was deleted (check --session and --user)`,
        );
      if (!(await sessions.deleteFact(scope, rest[0]!))) {
        throw new StageloopError(
          'not_found',
          `${where} has no fact "${rest[0]}": nothing was deleted; "stageloop facts list --session ${scope.session}" shows its facts`,
        );
      }
      streams.stderr.write(`deleted fact "${terminalSafe(rest[0]!)}" from ${where}\n`);
      return 0;
    }
    const facts = await sessions.listFacts(scope);
    if (values.json) streams.stdout.write(`${JSON.stringify(facts)}\n`);
    else if (facts.length === 0) streams.stderr.write(`${where} has no facts\n`);
    else
      for (const fact of facts)
        streams.stdout.write(
          `${terminalSafe(fact.key)}: ${terminalSafe(fact.value)}  (run ${fact.sourceRun}, ${new Date(fact.updated).toISOString()})\n`,
        );
    return 0;
  } finally {
    opened.close();
  }
}
