// One declaration and one meaning per exported name: a name two entries export is the same declaration in both, and
// the root entry stays the everyday surface (evaluation, tracing, recording internals have entries of their own).
// Read from the sources with the TypeScript checker, for every entry package.json publishes.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from './consumer-project.js';

/** Names exported twice for one release: 'stageloop/eval' keeps `evaluate` and `EvaluateOptions` as deprecated aliases
 * of `runEval` and `RunEvalOptions`, while the loop stage of that name and its options are in 'stageloop/stages'. */
const pendingRenames = new Set(['evaluate', 'EvaluateOptions']);

/** Entry (`.`, `./eval`, ...) to its source file, from the declaration file package.json publishes for it. */
function entrySources(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as {
    exports: Record<string, { types?: string } | string>;
  };
  const sources = new Map<string, string>();
  for (const [entry, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string' || target.types === undefined) continue;
    sources.set(entry, join(repositoryRoot, target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')));
  }
  return sources;
}

/** Each entry's exported names, each with the place of the declaration it resolves to. */
function exportedNames(): Map<string, Map<string, string>> {
  const sources = entrySources();
  const config = ts.getParsedCommandLineOfConfigFile(
    join(repositoryRoot, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  )!;
  const program = ts.createProgram([...sources.values()], config.options);
  const checker = program.getTypeChecker();
  const entries = new Map<string, Map<string, string>>();
  for (const [entry, file] of sources) {
    const names = new Map<string, string>();
    for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = target.declarations?.[0];
      names.set(
        exported.name,
        declaration
          ? `${relative(repositoryRoot, declaration.getSourceFile().fileName)}:${declaration.pos}`
          : exported.name,
      );
    }
    entries.set(entry, names);
  }
  return entries;
}

describe('the names the entries export', () => {
  const entries = exportedNames();

  it('mean one thing: a name in two entries is one declaration', () => {
    const places = new Map<string, Set<string>>();
    for (const names of entries.values())
      for (const [name, place] of names) places.set(name, (places.get(name) ?? new Set()).add(place));
    const twice = [...places]
      .filter(([name, where]) => where.size > 1 && !pendingRenames.has(name))
      .map(([name, where]) => `${name}: ${[...where].join(' and ')}`);
    expect(twice).toEqual([]);
  });

  it('keep the root entry small: evaluation and tracing have their own', () => {
    const root = entries.get('.')!;
    expect(root.size).toBeLessThanOrEqual(160);
    for (const name of [
      'evaluate',
      'graders',
      'loadDataset',
      'instrumentDeps',
      'otelRunTracer',
      'redactSecrets',
      'JournalEntry',
    ])
      expect(root.has(name)).toBe(false);
    expect(entries.get('./eval')!.has('runEval')).toBe(true);
    expect(entries.get('./eval')!.has('RunEvalOptions')).toBe(true);
    expect(entries.get('./tracing')!.has('instrumentDeps')).toBe(true);
  });
});

describe('the eval runner', () => {
  it('is runEval; evaluate is its deprecated alias for one release, marked so in the published declarations', async () => {
    const entry = await import('../../src/entries/eval.js');
    expect(typeof entry.runEval).toBe('function');
    expect(entry.evaluate).toBe(entry.runEval);
    const declarations = readFileSync(join(repositoryRoot, 'dist/src/entries/eval.d.ts'), 'utf8');
    expect(declarations).toMatch(/@deprecated Renamed \{@link runEval\}[^*]*\*\/\s*export declare const evaluate/);
    expect(declarations).toMatch(/@deprecated Renamed \{@link RunEvalOptions\}[^*]*\*\/\s*export type EvaluateOptions/);
  });
});
