// The crash test on PostgreSQL: a subset of crash-scenarios.ts's scenarios (each kind of kill point), with the
// children and the parent sharing one server the file starts, a schema per scenario.
import { describe } from 'vitest';
import { runPostgresTests } from '../support/postgres-server.js';
import { allScenarios, describeCrashes } from './crash-scenarios.js';

const chosen = new Set(['answer-1', 'answer-2', 'cap-1', 'padded-1', 'planned-1']);

describe.runIf(runPostgresTests)('PostgreSQL', () => {
  describeCrashes(
    'postgres',
    allScenarios.filter((scenario) => chosen.has(scenario.name)),
    { kills: 18, resumed: 5 },
  );
});
