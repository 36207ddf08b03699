// Serves the console: its page, script and stylesheet, all from string modules inside the package (works offline).
import { Hono } from 'hono';
import { consoleBundle, consolePage, faviconSvg } from './pages.js';
import { consoleStyle } from './style.js';

/** The console's own files: served without the token (the page asks for it and sends it with each API call). */
export const consolePaths = ['/', '/console.js', '/console.css', '/favicon.svg', '/favicon.ico'];

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
  // Browsers ask for /favicon.ico whatever the page links: both answer with the SVG, so neither is a 404.
  for (const path of ['/favicon.svg', '/favicon.ico'])
    routes.get(path, (context) =>
      context.body(faviconSvg, 200, { ...headers, 'content-type': 'image/svg+xml', 'cache-control': 'max-age=86400' }),
    );
  return routes;
}
