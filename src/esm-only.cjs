// What `require('stageloop')` meets on a Node.js that cannot require ES modules: one line that says what to do.
throw new Error(
  "stageloop is an ES module only: use `import { runPipeline } from 'stageloop'` (or `await import('stageloop')` from CommonJS) instead of require()",
);
