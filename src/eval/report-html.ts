// The eval report page: self-contained (no CDN, no server), drawn with the console's style and run page script.
import { writeFile } from 'node:fs/promises';
import { escapeHtml, scriptJson } from '../server/console/pages.js';
import { runPageScript } from '../server/console/run-page-script.js';
import { consoleStyle } from '../server/console/style.js';
import type { RunView } from '../server/run-view.js';
import type { BaselineComparison } from './baseline.js';
import { evalReportScript } from './report-script.js';
import type { EvalResult } from './types.js';

const reportStyle = `
.charts { display: flex; flex-wrap: wrap; gap: 12px; } figure.chart { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 6px; }
figcaption { font-size: 12px; color: var(--muted); text-align: center; }
.chart-legend { display: flex; flex-wrap: wrap; justify-content: center; gap: 2px 12px; font-size: 12px; } .chart-legend .legend-item { display: inline-flex; align-items: center; }
td.cell { cursor: pointer; } td.pass, li.pass { color: #2a8a3a; } td.fail, li.fail { color: #c33; font-weight: 600; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
#detail { margin-top: 16px; border-top: 1px solid var(--line); } .run { margin-left: 8px; }
.gate-failed { color: #c33; font-weight: 600; } .gate-passed { color: #2a8a3a; font-weight: 600; }
`;

function baselineSection(comparison: BaselineComparison | undefined): string {
  if (comparison === undefined) return '';
  const items = comparison.regressions
    .map(
      (entry) =>
        `<li>${entry.kind === 'regressed' ? 'regressed' : 'new case failing'}: ${escapeHtml(entry.variant)} ${escapeHtml(entry.id)}</li>`,
    )
    .join('');
  const verdict = comparison.failed
    ? '<span class="gate-failed">regressed</span>'
    : '<span class="gate-passed">no regression</span>';
  return `<section><h2>Baseline</h2><p>${escapeHtml(comparison.file)} (threshold ${comparison.threshold}): ${verdict}</p>${items ? `<ul id="regressions">${items}</ul>` : ''}</section>`;
}

/** The page; `views` are the recorded runs as the console shows them (by run id), for the drill-down. */
export function evalReportPage(
  result: EvalResult,
  views: Readonly<Record<string, RunView>>,
  comparison?: BaselineComparison,
): string {
  const title = `stageloop eval ${result.evalId}`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${consoleStyle}${reportStyle}</style></head>
<body>
<header><h1>${escapeHtml(title)}</h1><span class="muted">${escapeHtml(result.dataset)}${result.complete ? '' : ' · interrupted: finished cases only'}</span></header>
<section><h2>Summary</h2><div id="summary-holder"></div></section>
<section><h2>Charts</h2><div id="charts" class="charts"></div></section>
${baselineSection(comparison)}
<section><h2>Cases</h2><p class="muted">Click a result for its grades and the run's timeline.</p><div id="cases-holder"></div></section>
<div id="detail"></div>
<script type="application/json" id="eval-data">${scriptJson({ result, views })}</script>
<script>${runPageScript}
${evalReportScript}</script>
</body></html>
`;
}

export async function writeHtmlReport(
  file: string,
  result: EvalResult,
  views: Readonly<Record<string, RunView>>,
  comparison?: BaselineComparison,
): Promise<void> {
  await writeFile(file, evalReportPage(result, views, comparison));
}
