import { memorySessions } from '../../src/sessions/memory-sessions.js';
import { sessionStoreConformance } from './conformance.js';

sessionStoreConformance('memory', () => memorySessions());
