// mkdir -p without Node 20's recursive mkdir, which spins forever on a parent that exists but cannot hold children
// (a path under /proc, a dangling link): each missing directory is made once, and the first refusal is final.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Makes `path` and its missing parents; throws the error of the first directory that cannot be made. */
export function makeDirectory(path: string): void {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      if (statSync(current).isDirectory()) break;
      throw Object.assign(new Error(`${current} exists and is not a directory`), { code: 'ENOTDIR' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const directory of missing.reverse()) {
    try {
      mkdirSync(directory);
    } catch (error) {
      // Another process may have made it meanwhile.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
