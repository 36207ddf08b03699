// The optional packages (peer dependencies a light install leaves out): each loads only when a feature needs it, and
// a missing one is one line naming what to install, not a resolution error from deep inside the package.
import { StageloopError } from './stageloop-error.js';

/** Each optional package and the version to install, as in package.json's peerDependencies. */
export const optionalPackages = {
  'better-sqlite3': '12.11.1',
  hono: '4.13.19',
  '@hono/node-server': '2.1.8',
  bullmq: '6.7.0',
  ioredis: '6.0.0',
  '@modelcontextprotocol/client': '2.4.0',
  '@modelcontextprotocol/server': '2.4.0',
  '@a2a-js/sdk': '1.3.0',
  pg: '8',
  '@opentelemetry/sdk-node': '0.223.0',
  '@opentelemetry/exporter-trace-otlp-http': '0.223.0',
  '@opentelemetry/sdk-trace-base': '2.12.0',
  '@opentelemetry/resources': '2.12.0',
  '@opentelemetry/context-async-hooks': '2.12.0',
  '@opentelemetry/semantic-conventions': '1.45.0',
  '@opentelemetry/sdk-metrics': '2.12.0',
  '@opentelemetry/exporter-metrics-otlp-http': '0.223.0',
  '@anthropic-ai/sdk': '1.10.0',
  '@ai-sdk/provider': '3.0.19',
} as const;

export type OptionalPackage = keyof typeof optionalPackages;

/** The packages each optional part needs: the CLI's commands and the entries name these. */
export const optionalParts = {
  sqlite: ['better-sqlite3'],
  server: ['hono', '@hono/node-server'],
  workers: ['bullmq', 'ioredis'],
  redis: ['ioredis'],
  /** The MCP client (stageloop/mcp, --mcp): SDK v2, which speaks 2026-07-28 and falls back to 2025-11-25. */
  mcpClient: ['@modelcontextprotocol/client'],
  mcpServer: ['@modelcontextprotocol/server'],
  tracing: [
    '@opentelemetry/sdk-node',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/sdk-trace-base',
    '@opentelemetry/resources',
    '@opentelemetry/context-async-hooks',
    '@opentelemetry/semantic-conventions',
    '@opentelemetry/sdk-metrics',
    '@opentelemetry/exporter-metrics-otlp-http',
  ],
  anthropic: ['@anthropic-ai/sdk'],
} as const satisfies Record<string, readonly OptionalPackage[]>;

export class MissingPackageError extends StageloopError {
  override name = 'MissingPackageError';
  constructor(
    readonly feature: string,
    readonly missing: readonly OptionalPackage[],
    /** `also`: more the message says after the install advice (", or pass --no-store"). */
    options: { cause?: unknown; also?: string } = {},
  ) {
    const install = missing.map((name) => `${name}@${optionalPackages[name]}`).join(' ');
    const names = missing.length > 1 ? `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}` : missing.join('');
    const plural = missing.length > 1 ? 's' : '';
    super(
      'config',
      `${feature} needs the optional package${plural} ${names}, not installed: run "npm install ${install}" beside stageloop${options.also ?? ''}`,
      options.cause === undefined ? {} : { cause: options.cause },
    );
  }
}

/** Whether `error` says that package `name` itself cannot be found (not a file inside it, not one of its own dependencies). */
export function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const text = String(message).split('\n')[0]!;
  return text.includes(`'${name}'`) || text.includes(`'${name}/`);
}

async function isInstalled(name: OptionalPackage): Promise<boolean> {
  try {
    await import(name);
    return true;
  } catch (error) {
    return !isMissingPackage(error, name);
  }
}

/**
 * Runs `load` (the dynamic imports of a feature); when it fails because one of `packages` is not installed, throws a
 * MissingPackageError that names every missing one of them, so one install command mends it.
 */
export async function loadOptional<Loaded>(
  feature: string,
  packages: readonly OptionalPackage[],
  load: () => Promise<Loaded>,
  hint?: string,
): Promise<Loaded> {
  try {
    return await load();
  } catch (error) {
    if (!packages.some((name) => isMissingPackage(error, name))) throw error;
    const missing: OptionalPackage[] = [];
    for (const name of packages) if (!(await isInstalled(name))) missing.push(name);
    throw new MissingPackageError(feature, missing.length > 0 ? missing : packages, {
      cause: error,
      ...(hint === undefined ? {} : { hint }),
    });
  }
}

/** loadOptional for CommonJS packages loaded with require() (the native SQLite binding): synchronous. */
export function requireOptional<Loaded>(
  feature: string,
  name: OptionalPackage,
  load: () => Loaded,
  hint?: string,
): Loaded {
  try {
    return load();
  } catch (error) {
    if (!isMissingPackage(error, name)) throw error;
    throw new MissingPackageError(feature, [name], { cause: error, ...(hint === undefined ? {} : { hint }) });
  }
}
