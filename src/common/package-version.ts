// stageloop's own version, from its package.json: two folders up from src/*/ in the sources, three from dist/src/*/.
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The version in stageloop's package.json, or '0.0.0' if it cannot be read. Read once. */
export function packageVersion(): string {
  cached ??= readVersion();
  return cached;
}

function readVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'stageloop' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // not at this level: try the next one up
    }
  }
  return '0.0.0';
}
