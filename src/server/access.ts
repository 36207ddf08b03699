// Who may talk to the server, checked once for every route (new routes inherit it): a Host allowlist against DNS
// rebinding, JSON-only bodies and an Origin check against cross-site requests, CORS only for configured origins, and
// the bearer token when one is set. Without a token an Authorization header is ignored (SDK clients always send one).
import { networkInterfaces } from 'node:os';
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { bearerToken } from './auth.js';
import { sendError } from './errors.js';

export interface AccessRules {
  /** Host names (no port) a request's Host header may carry; `*` allows any. */
  allowedHosts: readonly string[];
  /** Origins (scheme://host[:port]) besides the server's own that may make state-changing requests and read with CORS. */
  allowedOrigins: readonly string[];
  token?: string;
  /** Paths served without the token (the console's page and assets: the page asks for the token itself). */
  publicPaths?: readonly string[];
}

const loopbackNames = ['localhost', '127.0.0.1', '::1'];
const wildcardBinds = new Set(['0.0.0.0', '::', '']);
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The names a server bound to `bindHost` answers to: loopback, the bound address (every local one for 0.0.0.0), extras. */
export function allowedHostsFor(bindHost: string, extra: readonly string[] = []): string[] {
  const bound = wildcardBinds.has(bindHost)
    ? Object.values(networkInterfaces()).flatMap((addresses) => (addresses ?? []).map((address) => address.address))
    : [bindHost];
  return [...new Set([...loopbackNames, ...bound, ...extra].map(normalHost))];
}

/** Lower case, no brackets around an IPv6 address, no trailing dot. */
function normalHost(name: string): string {
  return name
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** The host name of a Host header value (`name`, `name:port`, `[v6]:port`). */
function hostNameOf(header: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  if (bracketed) return normalHost(bracketed[1]!);
  return normalHost(header.replace(/:\d+$/, ''));
}

/** `http://Host` as a browser on this server's own page would send it in Origin. */
const ownOrigins = (host: string): string[] => [`http://${host}`.toLowerCase(), `https://${host}`.toLowerCase()];

/** A body a browser could send cross-site without a preflight is refused: only JSON is taken. */
function isJson(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

function hasBody(headers: { get(name: string): string | null }): boolean {
  const length = headers.get('content-length');
  return (
    (length !== null && length !== '0') ||
    headers.get('transfer-encoding') !== null ||
    headers.get('content-type') !== null
  );
}

/** The one access middleware: Host, then body type, then Origin, then CORS, then the token. */
export function accessControl(rules: AccessRules): MiddlewareHandler {
  const anyHost = rules.allowedHosts.includes('*');
  const hosts = new Set(rules.allowedHosts.map(normalHost));
  const origins = new Set(rules.allowedOrigins.map((origin) => origin.toLowerCase()));
  const corsHandler =
    origins.size === 0
      ? undefined
      : cors({
          origin: [...rules.allowedOrigins],
          allowHeaders: ['content-type', 'authorization', 'last-event-id'],
          exposeHeaders: ['etag', 'location'],
          maxAge: 600,
        });
  const tokenCheck = rules.token === undefined ? undefined : bearerToken(rules.token);
  const publicPaths = new Set(rules.publicPaths ?? []);
  return async function checkAccess(context, next) {
    const headers = context.req.raw.headers;
    const host = headers.get('host') ?? '';
    if (!anyHost && !hosts.has(hostNameOf(host))) {
      return sendError(
        context,
        'forbidden',
        `this server does not answer to the host "${host.slice(0, 100)}": open it by an address it is bound to (e.g. 127.0.0.1), or start it with --allow-host NAME`,
      );
    }
    const method = context.req.method;
    if (!safeMethods.has(method)) {
      if (hasBody(headers) && !isJson(headers.get('content-type') ?? '')) {
        return sendError(
          context,
          'unsupported_media_type',
          `the request body must be JSON: send Content-Type: application/json (got "${(headers.get('content-type') ?? 'none').slice(0, 100)}")`,
        );
      }
      const origin = headers.get('origin');
      if (origin !== null && !ownOrigins(host).includes(origin.toLowerCase()) && !origins.has(origin.toLowerCase())) {
        return sendError(
          context,
          'forbidden',
          `requests from the origin "${origin.slice(0, 100)}" are refused: only this server's own pages may change runs; start it with --allow-origin ${origin.slice(0, 100)} to allow that origin`,
        );
      }
    }
    const guarded = async () => {
      if (tokenCheck === undefined || publicPaths.has(context.req.path)) return void (await next());
      const refused = await tokenCheck(context, next);
      if (refused !== undefined) context.res = refused;
    };
    // A preflight is answered by the CORS handler alone; other requests get their CORS headers on the way out.
    if (corsHandler !== undefined)
      return method === 'OPTIONS' ? corsHandler(context, next) : void (await corsHandler(context, guarded));
    await guarded();
  };
}
