import { memoryStore } from '../../src/store/memory-store.js';
import { storeConformance } from './conformance.js';

storeConformance('memoryStore', (clock) => memoryStore({ clock }));
