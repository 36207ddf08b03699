import { memoryStore } from '../../src/store/memory-store.js';
import { storeConformance, type StoreFactory } from './conformance.js';
import { storeLeaseConformance } from './conformance-leases.js';

const factory: StoreFactory = (clock) => memoryStore({ clock });
storeConformance('memoryStore', factory);
storeLeaseConformance('memoryStore', factory);
