// The clock and ids a run uses when its caller injects none.
import { randomFillSync } from 'node:crypto';
import type { Clock, IdGenerator } from './stage.js';

export const systemClock: Clock = { now: () => Date.now() };

/** Run ids: 128 random bits as 32 hex digits, cut from a pool filled 256 ids at a time (one flat string each). */
const idPool = Buffer.allocUnsafe(16 * 256);
let idOffset = idPool.length;
export const randomIds: IdGenerator = {
  newId(): string {
    if (idOffset === idPool.length) {
      randomFillSync(idPool);
      idOffset = 0;
    }
    idOffset += 16;
    return idPool.toString('hex', idOffset - 16, idOffset);
  },
};
