/** @module stageloop/testing */
// stageloop/testing: what a test of your own stages, tools and pipelines needs; test doubles live here, not in 'stageloop'.
export { ScriptedModel, type ScriptedStep, type ScriptedReply } from '../model/scripted-model.js';
export { makeState, makeClock, makeIds } from './state.js';
export { runStage, type RunStageOptions, type StageRun } from './run-stage.js';
export { stageContext, type StageContextOptions, type TestStageContext } from './stage-context.js';
