// A pipeline as the server lists it: its name, cap and the stage names of its three zones. Its own file so the app
// and the protocol routes it mounts both reach it without importing each other.
export interface PipelineInfo {
  name: string;
  maxIterations: number;
  setup: string[];
  iteration: string[];
  finalize: string[];
}
