// stageloop's own version, read from the package.json above this file (two levels up from source, three from dist/).
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached !== undefined) return cached;
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const json = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (json.name === 'stageloop' && typeof json.version === 'string') return (cached = json.version);
    } catch {
      // Not here: try the next place.
    }
  }
  return (cached = '0.0.0');
}
