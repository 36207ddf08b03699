// The config file's value checks (a JSON object, a non-empty string, an http(s) URL) and its `${VAR}` expansion, shared
// by its sections (MCP servers, fallback models, agents). Errors name the place, never the value.
import type { Environment } from '../src/model/config.js';
import { StageloopError } from '../src/common/stageloop-error.js';

/** `${VAR}` (or VS Code's `${env:VAR}`) replaced from the environment: the config file's values and the recipe's secret templates; an unset variable is a config error naming it, never a value. */
export function expandVariables(value: string, where: string, env: Environment): string {
  return value.replace(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g, (_reference, variable: string) => {
    const found = env[variable];
    if (found === undefined)
      throw new StageloopError(
        'config',
        `${where} uses \${${variable}}, which is not set: export ${variable} before running stageloop`,
      );
    return found;
  });
}

/** An object of strings, each with its `${VAR}` templates filled (MCP servers' env and headers). */
export function expandedRecord(value: unknown, where: string, env: Environment): Record<string, string> {
  const entries = Object.entries(configObject(value, where, ''));
  const result: Record<string, string> = {};
  for (const [key, field] of entries) {
    // The value is never shown: it may be a secret.
    if (typeof field !== 'string') throw new StageloopError('config', `${where}.${key} must be a string`);
    result[key] = expandVariables(field, `${where}.${key}`, env);
  }
  return result;
}

/** The value as an object; `what` names it in `file` (empty: the file itself). */
export function configObject(value: unknown, file: string, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new StageloopError('config', `${what ? `${file}: ${what}` : file} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** The value as a non-empty string. */
export function configText(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new StageloopError('config', `${where} must be a non-empty string`);
  return value;
}

/** The value, when it is an http:// or https:// URL. */
export function checkUrl(value: string, where: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    // Reported below.
  }
  throw new StageloopError('config', `${where} must be an http:// or https:// URL`);
}
