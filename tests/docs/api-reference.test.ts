// The API reference is generated from the published types by TypeDoc (`npm run docs:api`, into api-reference/, not
// committed); the suite checks that it builds without a warning, so a broken {@link} or a missing entry fails CI.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const typedoc = join(root, 'node_modules/typedoc/bin/typedoc');

function runTypedoc(cwd: string, ...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [typedoc, ...args], { cwd, encoding: 'utf8', timeout: 540_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the API reference', () => {
  it('builds from every package entry without a warning (no broken link)', () => {
    const { status, output } = runTypedoc(root, '--emit', 'none');
    expect(output).not.toMatch(/\[(warning|error)\]/);
    expect(status).toBe(0);
  }, 600_000);

  it('the same settings fail on a planted broken link', () => {
    const folder = mkdtempSync(join(tmpdir(), 'stageloop-typedoc-'));
    writeFileSync(join(folder, 'entry.ts'), '/** Links to {@link nowhereToBeFound}. */\nexport const value = 1;\n');
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', target: 'es2022' }, files: ['entry.ts'] }),
    );
    // The project's settings with only the entry and tsconfig swapped for the planted file's.
    const settings = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(
      join(folder, 'typedoc.json'),
      JSON.stringify({ ...settings, entryPoints: ['entry.ts'], tsconfig: 'tsconfig.json', out: 'out' }),
    );
    const { status, output } = runTypedoc(folder, '--emit', 'none');
    expect(output).toMatch(/nowhereToBeFound/);
    expect(status).not.toBe(0);
  }, 600_000);
});
