// The worker failover tests of failover-suite.ts with the runs in PostgreSQL: the queue on Redis, the store apart.
import { describe } from 'vitest';
import { runPostgresTests } from '../support/postgres-server.js';
import { describeFailover } from './failover-suite.js';
import { runRedisTests } from './redis-server.js';

describe.runIf(runRedisTests && runPostgresTests)('PostgreSQL store', () => describeFailover('postgres'));
