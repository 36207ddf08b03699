import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { sqliteStore } from '../../src/store/sqlite-store.js';
import { storeConformance } from './conformance.js';

const directory = mkdtempSync(join(tmpdir(), 'stageloop-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let count = 0;

storeConformance('sqliteStore', (clock) => sqliteStore(join(directory, `conformance-${++count}`, 'stageloop.db'), { clock }));
