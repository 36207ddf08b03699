// Starts the app on a port (127.0.0.1 unless told otherwise), refusing a non-loopback address without a token.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { StageloopError } from '../common/stageloop-error.js';

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

export function checkBind(host: string, token: string | undefined): void {
  if (token === undefined && !isLoopback(host)) {
    throw new StageloopError(
      'config',
      `binding ${host} would let anyone on the network start runs: set a token with --token T (or STAGELOOP_TOKEN), or bind 127.0.0.1`,
    );
  }
}

export interface ListeningServer {
  url: string;
  port: number;
  /** Stops accepting connections and ends open ones (event streams included). */
  close(): Promise<void>;
}

export function listen(app: Hono, options: { host: string; port: number; token?: string }): Promise<ListeningServer> {
  checkBind(options.host, options.token);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: options.host, port: options.port }) as Server;
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason =
        error.code === 'EADDRINUSE' ? `port ${options.port} is in use: pass another --port` : error.message;
      reject(new StageloopError('config', `cannot listen on ${options.host}:${options.port}: ${reason}`));
    });
    server.once('listening', () => {
      const port = (server.address() as AddressInfo).port;
      const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
      resolve({
        url: `http://${shown}:${port}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
