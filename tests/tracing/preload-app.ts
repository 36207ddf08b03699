// A user's app, for the preload tests: `node --import tsx --import ./otel.config.ts tests/tracing/preload-app.ts`.
// It knows nothing of the SDK: it traces through the global API that otel.config.ts registered.
import { runPipeline } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { instrumentDeps } from '../../src/tracing/instrument.js';
import { agentPipeline, lookupRegistry } from './fixtures.js';

const model = new ScriptedModel([
  { toolCalls: [{ name: 'lookup', arguments: '{"q":"a"}' }] },
  { content: 'preloaded answer' },
]);
const result = await runPipeline(
  agentPipeline('preload-app'),
  { task: 'look a up' },
  { deps: instrumentDeps({ model, tools: lookupRegistry() }) },
);
process.stdout.write(`${result.status}: ${result.answer}\n`);
