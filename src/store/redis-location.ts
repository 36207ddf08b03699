// Kept for callers of 0.1: openStore (location.ts) opens every kind of store now, Redis URLs included.
import { openStore, type StoreLocation } from './location.js';
import type { RunStore } from './types.js';

export function openStoreAt(location: StoreLocation = {}): RunStore {
  return openStore(location);
}
