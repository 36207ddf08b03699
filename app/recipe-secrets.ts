// Where a recipe's secrets come from. A `${VAR}` the user wrote is read from the environment of whoever assembles the
// run. A literal value in the config file (an MCP server's `env` or `headers`, a fallback `apiKey`) is lent to the
// first process under a STAGELOOP_SECRET_... variable and never recorded: the recipe records its file and field, so
// approving or resuming the run from a new shell (or the server) reads it there again instead of asking for a
// variable nobody set. docs/mcp.md, "Secrets of a paused run", says so to the user.
import { readFileSync } from 'node:fs';
import { messageOf } from '../src/common/error-message.js';
import { StageloopError } from '../src/common/stageloop-error.js';
import type { Environment } from '../src/model/config.js';
import type { RunRecipe } from './recipe.js';

/** The config file and the field (path of keys) a lent secret was read from. */
export interface SecretSource {
  file: string;
  field: string[];
}

/** The environment plus every lent secret it lacks, each read again from its config file field. */
export function withRecordedSecrets(recipe: RunRecipe, env: Environment): Environment {
  const missing = Object.entries(recipe.secrets).filter(([variable]) => env[variable] === undefined);
  if (missing.length === 0) return env;
  const filled: Environment = { ...env };
  for (const [variable, source] of missing) filled[variable] = secretOf(variable, source);
  return filled;
}

function secretOf(variable: string, { file, field }: SecretSource): string {
  let why: string;
  try {
    let node: unknown = JSON.parse(readFileSync(file, 'utf8'));
    for (const key of field)
      node =
        node !== null && typeof node === 'object' && Object.hasOwn(node, key)
          ? (node as Record<string, unknown>)[key]
          : undefined;
    if (typeof node === 'string' && !node.includes('${')) return node;
    why = node === undefined ? 'the field is gone' : 'the field is no longer a literal value';
  } catch (error) {
    why = messageOf(error).split('\n')[0]!;
  }
  // The value is never shown: only where it was and how to give it.
  throw new StageloopError(
    'config',
    `${field.join('.')} of ${file} is a secret this run was started with, and it cannot be read there now (${why}): restore the file, or export ${variable} with that value (docs/mcp.md, "Secrets of a paused run")`,
  );
}
