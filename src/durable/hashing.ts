// Hashes that tell whether two runs reached the same place: a pipeline's shape and a state's JSON.
import { hash } from 'node:crypto';
import { zones, type Pipeline } from '../engine/pipeline.js';

export function hashText(text: string): string {
  return hash('sha1', text);
}

/** The pipeline's name, stage lists and iteration cap: what resume compares against the recording. */
export function pipelineFingerprint(pipeline: Pipeline): string {
  const shape = zones.map((zone) => `${zone}:${pipeline[zone].map((stage) => stage.name).join(',')}`).join(';');
  return hashText(`${pipeline.name}|${shape}|max=${pipeline.maxIterations}`).slice(0, 16);
}

/** A state's JSON and its hash; the text is kept for checkpoints, so it is made once. */
export interface StateDigest {
  text: string;
  hash: string;
}

export function stateDigest(state: object): StateDigest {
  const text = JSON.stringify(state);
  return { text, hash: hashText(text) };
}
