// The worker failover tests of failover-suite.ts with the runs in the queue's Redis.
import { describe } from 'vitest';
import { describeFailover } from './failover-suite.js';
import { runRedisTests } from './redis-server.js';

describe.runIf(runRedisTests)('Redis store', () => describeFailover('redis'));
