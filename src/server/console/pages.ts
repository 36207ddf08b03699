// The console's page, and the self-contained page of one run that `stageloop show RUN --html` writes.
import { consoleScript } from './console-script.js';
import { runPageScript } from './run-page-script.js';
import { consoleStyle } from './style.js';

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** JSON inside a script element: `<` escaped so no text in the run can close the element. */
export const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const head = (title: string, style: string, icon = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>${icon}${style}</head>`;

/** The console's icon: three stacked stage bars (an SVG, served as /favicon.svg and /favicon.ico). */
export const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2f6fde"/><rect x="3" y="3.5" width="7" height="2" rx="1" fill="#fff"/><rect x="5" y="7" width="8" height="2" rx="1" fill="#f0b3ff"/><rect x="7" y="10.5" width="5" height="2" rx="1" fill="#ffc48a"/></svg>`;

export const consolePage = `${head('stageloop console', '<link rel="stylesheet" href="/console.css">', '<link rel="icon" href="/favicon.svg" type="image/svg+xml">')}
<body>
<header><h1><a href="#/">stageloop</a></h1><label class="muted">token <input id="token" type="password" autocomplete="off" size="12"></label></header>
<p id="error" class="error" role="alert"></p>
<div id="list-view">
<section><h2>Start a run</h2>
<form id="start"><textarea id="task" name="task" required placeholder="What should the agent do?"></textarea><select id="pipeline" name="pipeline"></select><input id="approve-tools" name="approveTools" placeholder="ask before: calculator, or all" aria-label="tools whose calls wait for a decision"><button type="submit">Start</button></form>
</section>
<section><h2>Runs <label class="filter"><input type="checkbox" id="waiting-only"> waiting for me (<span id="waiting-count">0</span>)</label></h2><table><thead><tr><th>status</th><th class="hide-narrow">pipeline</th><th>task</th><th>started</th><th class="hide-narrow">tokens</th></tr></thead><tbody id="run-rows"></tbody></table></section>
</div>
<div id="run-view" hidden><p><a href="#/">← all runs</a></p><div id="decisions"></div><div id="run"></div></div>
<script src="/console.js"></script>
</body></html>
`;

export const consoleBundle = `${runPageScript}\n${consoleScript}`;

/** One run, its data inlined: opens from a file with no server. */
export function standaloneRunPage(view: { run: { runId: string } }): string {
  return `${head(`stageloop run ${view.run.runId}`, `<style>${consoleStyle}</style>`)}
<body><div id="run"></div>
<script type="application/json" id="run-data">${scriptJson(view)}</script>
<script>${runPageScript}
renderRun(JSON.parse(document.getElementById('run-data').textContent), document.getElementById('run'), null);</script>
</body></html>
`;
}
