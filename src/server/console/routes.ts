// Serves the console: its page, script and stylesheet, all from string modules inside the package (works offline).
import { Hono } from 'hono';
import { consoleBundle, consolePage } from './pages.js';
import { consoleStyle } from './style.js';

/** The console's own files: served without the token (the page asks for it and sends it with each API call). */
export const consolePaths = ['/', '/console.js', '/console.css'];

export function consoleRoutes(): Hono {
  const routes = new Hono();
  const headers = { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' };
  routes.get('/', (context) =>
    context.html(consolePage, 200, { ...headers, 'content-security-policy': "default-src 'self'; style-src 'self'" }),
  );
  routes.get('/console.js', (context) =>
    context.body(consoleBundle, 200, { ...headers, 'content-type': 'text/javascript; charset=utf-8' }),
  );
  routes.get('/console.css', (context) =>
    context.body(consoleStyle, 200, { ...headers, 'content-type': 'text/css; charset=utf-8' }),
  );
  return routes;
}
