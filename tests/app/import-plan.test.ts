// The import plan: src/ < stages/ < pipelines/ < app/, each importing only its own layer and the ones below, no file
// importing itself through others, and app/assemble.ts the only file that builds a pipeline from a recipe. Inside src/
// the folders keep an order too; inside stages/ each family imports only its own files, stages/shared/ and (types only)
// other families' *-slot.ts files; the app root never imports app/cli/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appRootImportsCli,
  familyCrossings,
  importCircles,
  importPlan,
  importsWithKinds,
  layers,
  pipelineBuilders,
  root,
  sourceFiles,
  srcOrderViolations,
  upwardImports,
  type ImportOf,
} from './import-plan-rules.js';

const files = layers.flatMap(sourceFiles);
const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('the import plan', () => {
  const plan = importPlan(files, read);

  it('reads the imports of every layer', () => {
    for (const layer of layers)
      expect(
        files.some((file) => file.startsWith(`${layer}/`)),
        layer,
      ).toBe(true);
    // A file we know imports through each form: static, type-only and import().
    expect(plan.get('app/cli/main.ts')).toContain('app/cli/commands.ts');
    expect(plan.get('app/cli/commands.ts')).toContain('app/cli/run-entry.ts');
    expect(plan.get('src/server/run-view.ts')).toContain('src/durable/timeline.ts');
  });

  it('has no upward import: src < stages < pipelines < app', () => {
    expect(upwardImports(plan)).toEqual([]);
  });

  it('has no import circle', () => {
    expect(importCircles(plan)).toEqual([]);
  });

  it('keeps the order inside src/: common < model < engine < tools/store/sessions < durable < tracing/stream/agents < server/workers/eval < entries', () => {
    expect(srcOrderViolations(plan)).toEqual([]);
  });

  it("keeps the stage families apart: own files, stages/shared/, and other families' *-slot.ts files for types", () => {
    const stageFiles = files.filter((file) => file.startsWith('stages/'));
    expect(familyCrossings(new Map(stageFiles.map((file) => [file, importsWithKinds(file, read(file))])))).toEqual([]);
  });

  it('the app root never imports app/cli/', () => {
    expect(appRootImportsCli(plan)).toEqual([]);
  });

  it('builds pipelines from a recipe in app/assemble.ts only', () => {
    expect(pipelineBuilders(files, read)).toEqual([]);
  });

  it('finds each kind of violation in a plan that has one', () => {
    const planted = new Map<string, string[]>([
      ['src/engine/a.ts', ['stages/b.ts']],
      ['stages/b.ts', ['src/engine/a.ts']],
      ['pipelines/c.ts', ['app/d.ts', 'pipelines/c.ts']],
      ['app/d.ts', []],
    ]);
    expect(upwardImports(planted)).toEqual(['src/engine/a.ts imports stages/b.ts', 'pipelines/c.ts imports app/d.ts']);
    expect(importCircles(planted).map((circle) => [...circle].sort())).toEqual([
      ['src/engine/a.ts', 'stages/b.ts'],
      ['pipelines/c.ts'],
    ]);
    const texts: Record<string, string> = {
      'app/x.ts': 'const p = buildPipeline(recipe);',
      'app/y.ts': '// buildPipeline(recipe) was here',
      'app/assemble.ts': 'buildPipeline(recipe)',
      'app/z.ts': 'parts.buildPipeline(recipe);',
    };
    expect(pipelineBuilders(Object.keys(texts), (file) => texts[file]!)).toEqual(['app/x.ts', 'app/z.ts']);
    const srcPlan = new Map<string, string[]>([
      ['src/engine/stage.ts', ['src/tools/tool.ts', 'src/model/types.ts']],
      ['src/tools/tool.ts', ['src/engine/stage.ts', 'src/durable/journal.ts']],
      ['src/store/a.ts', ['src/sessions/b.ts']],
      ['src/sessions/b.ts', ['src/store/c.ts']],
      ['src/index.ts', ['src/testing/index.ts', 'src/server/app.ts']],
      ['src/wild/d.ts', ['src/common/json.ts']],
    ]);
    expect(srcOrderViolations(srcPlan)).toEqual([
      'src/engine/stage.ts imports src/tools/tool.ts',
      'src/tools/tool.ts imports src/durable/journal.ts',
      'src/wild/d.ts imports src/common/json.ts: a folder of src/ without a rank',
      'src/sessions and src/store import each other',
    ]);
    const family = (target: string, typeOnly = false): ImportOf => ({ target, typeOnly });
    const stageImports = new Map<string, ImportOf[]>([
      [
        'stages/loop/think.ts',
        [
          family('stages/loop/act.ts'),
          family('stages/shared/text.ts'),
          family('stages/plan/plan-slot.ts', true),
          family('stages/plan/plan-steps.ts'),
          family('stages/plan/plan-slot.ts'),
          family('stages/guards/limits.ts', true),
        ],
      ],
      ['stages/shared/prompts.ts', [family('stages/plan/plan-slot.ts', true), family('stages/plan/plan-render.ts')]],
      ['stages/guards/index.ts', [family('stages/pipeline-policies.ts')]],
      ['stages/pipeline-policies.ts', [family('stages/approval/approval.ts')]],
    ]);
    expect(familyCrossings(stageImports)).toEqual([
      'stages/loop/think.ts imports stages/plan/plan-steps.ts',
      'stages/loop/think.ts imports stages/plan/plan-slot.ts',
      'stages/loop/think.ts imports stages/guards/limits.ts (types)',
      'stages/shared/prompts.ts imports stages/plan/plan-render.ts',
    ]);
    const kinds = importsWithKinds(
      'stages/loop/x.ts',
      "import type { A } from './a.js';\nimport { type B, type C } from './b.js';\nimport { D, type E } from './c.js';\nimport type {} from '../plan/plan-slot.js';\nexport { F } from './f.js';\nexport type { G } from './g.js';\ntype H = import('./h.js').H;\nconst i = () => import('./i.js');",
    );
    expect(kinds.map((each) => `${each.target}${each.typeOnly ? ' type' : ''}`)).toEqual([
      'stages/loop/a.ts type',
      'stages/loop/b.ts type',
      'stages/loop/c.ts',
      'stages/plan/plan-slot.ts type',
      'stages/loop/f.ts',
      'stages/loop/g.ts type',
      'stages/loop/h.ts type',
      'stages/loop/i.ts',
    ]);
    expect(
      appRootImportsCli(
        new Map([
          ['app/a.ts', ['app/cli/args.ts', 'app/b.ts']],
          ['app/cli/c.ts', ['app/cli/args.ts']],
        ]),
      ),
    ).toEqual(['app/a.ts imports app/cli/args.ts']);
  });
});
