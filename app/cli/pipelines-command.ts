// `stageloop pipelines [--json]`: the built-in pipelines with the stages of their three zones, under the guard flags given.
import { zones } from '../../src/engine/pipeline.js';
import { pipelineNames, pipelineOf } from '../assemble.js';
import { makeRecipe } from '../recipe.js';
import { parsePipelinesFlags } from './args.js';
import type { CommandModule } from './command.js';

type Listing = { name: string; maxIterations: number } & Record<string, string[]>;

export const pipelines: CommandModule = {
  usage: () => 'Usage: stageloop pipelines [--json] [guard flags of "stageloop run"]',
  async run(argv, io) {
    const flags = parsePipelinesFlags(argv);
    if (flags === 'help') return 'help';
    const { json, guards } = flags;
    const listing = pipelineNames.map((name): Listing => {
      const pipeline = pipelineOf(makeRecipe({ pipeline: name, guards }));
      const stages = Object.fromEntries(zones.map((zone) => [zone, pipeline[zone].map((stage) => stage.name)]));
      return { name, maxIterations: pipeline.maxIterations, ...stages } as Listing;
    });
    if (json) return (void io.stdout.write(`${JSON.stringify(listing)}\n`), 0);
    for (const entry of listing) {
      io.stdout.write(`${entry.name} (at most ${entry.maxIterations} iterations)\n`);
      for (const zone of zones)
        io.stdout.write(`  ${zone.padEnd(9)} ${entry[zone]!.length ? entry[zone]!.join(' → ') : '(none)'}\n`);
    }
    return 0;
  },
};
