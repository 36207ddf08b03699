// The console's stylesheet (a string module: tsc emits it into dist/, so the package needs no asset copy step).
export const consoleStyle = `
:root { color-scheme: light dark; --line: #8884; --muted: #888; --accent: #2f6fde; font: 14px/1.45 system-ui, sans-serif; }
body { margin: 0; padding: 0 12px 40px; max-width: 1100px; margin-inline: auto; }
header { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: baseline; padding: 12px 0; border-bottom: 1px solid var(--line); }
header h1 { font-size: 18px; margin: 0; } header a { color: inherit; }
section { margin-top: 16px; } h2 { font-size: 15px; margin: 16px 0 8px; }
form { display: grid; gap: 8px; grid-template-columns: 1fr auto auto auto; align-items: start; }
textarea { min-height: 2.6em; resize: vertical; font: inherit; padding: 6px; }
select, button, input { font: inherit; padding: 6px 10px; }
button { cursor: pointer; border: 1px solid var(--line); border-radius: 6px; background: var(--accent); color: #fff; }
button.reject { background: #c33; }
table { width: 100%; border-collapse: collapse; } td, th { text-align: left; padding: 6px 4px; border-bottom: 1px solid var(--line); vertical-align: top; }
tr.run-row { cursor: pointer; } tr.run-row:hover { background: #8881; }
.status { font-weight: 600; } .status-completed { color: #2a8a3a; } .status-failed { color: #c33; } .status-running { color: var(--accent); }
.status-interrupted { color: #c80; } .muted { color: var(--muted); }
.task { overflow-wrap: anywhere; }
.waterfall { font-size: 13px; }
.wf-rows { display: grid; grid-template-columns: minmax(120px, 30%) 1fr; gap: 2px 8px; }
details.iteration > summary { cursor: pointer; list-style: none; } details.iteration > summary::-webkit-details-marker { display: none; }
details.iteration > summary .zone::before { content: '▸ '; color: var(--muted); } details.iteration[open] > summary .zone::before { content: '▾ '; }
details.iteration:not([open]) > summary .zone { font-weight: 400; }
.waterfall .bar.iteration-span { background: #8884; }
.waterfall .call-detail { grid-column: 1 / -1; margin-left: 16px; } .waterfall .call-detail pre { white-space: pre-wrap; margin: 2px 0 6px; color: var(--muted); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 0 0 6px; color: var(--muted); font-size: 12px; }
.legend-item { display: inline-flex; align-items: center; gap: 5px; } .legend .swatch { display: inline-block; width: 14px; height: 10px; border-radius: 2px; }
.key-stage { background: var(--accent); } .key-model { background: #9b59b6; } .key-tool { background: #e67e22; } .key-decision { background: #16a085; } .key-paused { background: #c80; }
.key-ended { background: #2a8a3a; } .key-steer { background: #c33; } .key-waiting { background: repeating-linear-gradient(45deg, #c803, #c803 4px, #c806 4px, #c806 8px); }
.eval-mark { font-size: 12px; padding: 0 6px; border-radius: 8px; background: #8e44ad22; color: #8e44ad; white-space: nowrap; }
tr.eval-run td { color: var(--muted); } tr.eval-run td .status { opacity: 0.85; }
h2 .filter { font-weight: 400; font-size: 13px; margin-left: 12px; }
.child-run { margin: 4px 0 4px 1.5em; border-left: 2px solid #ddd; padding-left: 8px; }
.child-run > summary { cursor: pointer; }
.waterfall .label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.waterfall .label.call { padding-left: 16px; color: var(--muted); }
.waterfall .zone { font-weight: 600; margin-top: 6px; } .wf-block > .zone { grid-column: 1 / -1; }
.waterfall .track { position: relative; height: 16px; background: #8881; border-radius: 3px; }
.waterfall .bar { position: absolute; top: 2px; bottom: 2px; min-width: 2px; border-radius: 2px; background: var(--accent); }
.waterfall .bar.model { background: #9b59b6; } .waterfall .bar.tool { background: #e67e22; } .waterfall .bar.steer { background: #c33; }
.waterfall .bar.decision { background: #16a085; } .waterfall .bar.ended { background: #2a8a3a; } .waterfall .bar.paused { background: #c80; }
.waterfall .bar.waiting { background: repeating-linear-gradient(45deg, #c803, #c803 4px, #c806 4px, #c806 8px); }
.pending-call { border: 1px solid #c80; border-radius: 6px; padding: 8px; margin: 8px 0; display: grid; gap: 6px; }
.pending-call textarea { font-family: ui-monospace, monospace; min-height: 0; resize: vertical; } .pending-call .why { color: var(--muted); }
.plan li { margin: 2px 0; } .step-completed { color: #2a8a3a; } .step-failed { color: #c33; } .step-in_progress { color: var(--accent); }
.plan .wave > ul { list-style: none; padding-left: 0.5em; border-left: 2px solid #ccc; margin: 2px 0 6px; } .step-blocked { color: #999; }
.plan.sub-plan { margin: 2px 0 2px 1.2em; padding-left: 0.5em; color: var(--text, inherit); } .step-replaced { color: #999; text-decoration: line-through; }
pre.answer { white-space: pre-wrap; overflow-wrap: anywhere; padding: 8px; border: 1px solid var(--line); border-radius: 6px; }
.facts { display: flex; flex-wrap: wrap; gap: 4px 16px; }
.error { color: #c33; }
@media (max-width: 600px) { form { grid-template-columns: 1fr; } .wf-rows { grid-template-columns: 1fr; } .hide-narrow { display: none; } }
`;
