// A pipeline as the server lists it: its name, cap and the stage names of its three zones. Its own file so the app
// and the protocol routes it mounts both reach it without importing each other.
export interface PipelineInfo {
  name: string;
  maxIterations: number;
  setup: string[];
  iteration: string[];
  finalize: string[];
}

/** An agent of the server's config file as the protocols offer it: a prompt per agent, and a run request may name it. */
export interface AgentInfo {
  name: string;
  description: string;
  /** The pipeline it runs. */
  pipeline: string;
  /** Its system prompt, which its prompt's template carries. */
  instructions: string;
}
