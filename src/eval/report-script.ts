// Browser code of the eval report: the summary table, three SVG charts, and the case × variant grid whose cells
// open the case's runs (grades, answer, and the run page the console draws). Plain ES2020, no template literals.
export const evalReportScript = String.raw`
var data = JSON.parse(document.getElementById('eval-data').textContent);
var palette = ['#2f6fde', '#e67e22', '#2a8a3a', '#9b59b6', '#c33', '#16a085', '#7f8c8d', '#d35400'];
var variants = data.result.summary.map(function (entry) { return entry.variant; });
function colour(variant) { return palette[variants.indexOf(variant) % palette.length]; }
function svg(tag, attributes, children) {
  var node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
  (children || []).forEach(function (child) { node.append(child instanceof Node ? child : document.createTextNode(String(child))); });
  return node;
}
function pct(value) { return Math.round(value * 100) + '%'; }
function summaryTable() {
  var head = ['variant', 'passed', 'pass rate', 'mean score', 'tokens', 'cost', 'p50', 'p95', 'stop reasons'];
  var rows = data.result.summary.map(function (entry) {
    var stops = Object.keys(entry.stopReasons).map(function (kind) { return kind + ' ' + entry.stopReasons[kind]; }).join(', ');
    return el('tr', {}, [el('td', {}, [el('span', { class: 'swatch', style: 'background:' + colour(entry.variant) }, []), entry.variant]), el('td', {}, [entry.passed + '/' + entry.cases]), el('td', {}, [pct(entry.passRate)]), el('td', {}, [entry.meanScore.toFixed(2)]), el('td', {}, [entry.tokens.total]), el('td', {}, ['$' + entry.costUsd.toFixed(4)]), el('td', {}, [ms(entry.latencyMs.p50)]), el('td', {}, [ms(entry.latencyMs.p95)]), el('td', {}, [stops])]);
  });
  return el('table', { id: 'summary' }, [el('thead', {}, [el('tr', {}, head.map(function (name) { return el('th', {}, [name]); }))]), el('tbody', {}, rows)]);
}
function chart(title, id, draw, extraKeys) {
  var width = 340, height = 220, plot = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, width: width, height: height, role: 'img', 'aria-label': title, id: id });
  draw(plot, width, height);
  return el('figure', { class: 'chart' }, [plot, el('figcaption', {}, [title]), chartLegend(extraKeys || [])]);
}
// Which colour is which variant (and, for a chart that needs them, what else a mark means).
function chartLegend(extraKeys) {
  var keys = variants.map(function (variant) { return el('span', { class: 'legend-item' }, [el('span', { class: 'swatch', style: 'background:' + colour(variant) }, []), variant]); });
  extraKeys.forEach(function (key) { keys.push(el('span', { class: 'legend-item muted' }, [el('span', { class: 'swatch', style: key.style }, []), key.text])); });
  return el('div', { class: 'chart-legend' }, keys);
}
// Ticks with their values on the y axis (a faint line across) and the x axis; positions in the plot's units.
function yTicks(plot, width, values, yOf, format) {
  values.forEach(function (value) {
    var y = yOf(value);
    plot.append(svg('line', { class: 'tick', x1: 36, y1: y, x2: 40, y2: y, stroke: 'currentColor', 'stroke-opacity': 0.6 }));
    plot.append(svg('line', { x1: 40, y1: y, x2: width - 10, y2: y, stroke: 'currentColor', 'stroke-opacity': 0.1 }));
    plot.append(svg('text', { class: 'tick-label', x: 34, y: y + 3, 'text-anchor': 'end', 'font-size': 9, fill: 'currentColor' }, [format(value)]));
  });
}
function xTicks(plot, height, values, xOf, format) {
  values.forEach(function (value, index) {
    // The last label ends at its tick, so it stays inside the chart.
    var x = xOf(value), anchor = index === values.length - 1 ? 'end' : 'middle';
    plot.append(svg('line', { class: 'tick', x1: x, y1: height - 30, x2: x, y2: height - 26, stroke: 'currentColor', 'stroke-opacity': 0.6 }));
    plot.append(svg('text', { class: 'tick-label', x: x, y: height - 17, 'text-anchor': anchor, 'font-size': 9, fill: 'currentColor' }, [format(value)]));
  });
}
function quarters(most) { return [0, most / 4, most / 2, (3 * most) / 4, most]; }
function countTicks(most) { var step = Math.max(1, Math.ceil(most / 4)), values = []; for (var value = 0; value <= most; value += step) values.push(value); return values; }
function fraction(value) { return Math.round(value * 100) + '%'; }
function axes(plot, width, height, labelX, labelY) {
  plot.append(svg('line', { x1: 40, y1: height - 30, x2: width - 10, y2: height - 30, stroke: 'currentColor', 'stroke-opacity': 0.4 }));
  plot.append(svg('line', { x1: 40, y1: 10, x2: 40, y2: height - 30, stroke: 'currentColor', 'stroke-opacity': 0.4 }));
  plot.append(svg('text', { x: width / 2, y: height - 4, 'text-anchor': 'middle', 'font-size': 11, fill: 'currentColor' }, [labelX]));
  plot.append(svg('text', { x: 10, y: height / 2, 'font-size': 11, fill: 'currentColor', transform: 'rotate(-90 10 ' + height / 2 + ')', 'text-anchor': 'middle' }, [labelY]));
}
function scoreChart(plot, width, height) {
  axes(plot, width, height, 'variant', 'pass rate / mean score');
  var band = (width - 50) / Math.max(1, variants.length), top = 10, bottom = height - 30;
  yTicks(plot, width, quarters(1), function (value) { return bottom - (bottom - top) * value; }, fraction);
  data.result.summary.forEach(function (entry, index) {
    var x = 45 + index * band;
    [entry.passRate, entry.meanScore].forEach(function (value, which) {
      var barHeight = (bottom - top) * value;
      plot.append(svg('rect', { class: 'bar', x: x + which * band * 0.4, y: bottom - barHeight, width: band * 0.35, height: barHeight, fill: colour(entry.variant), 'fill-opacity': which ? 0.5 : 1 }, [svg('title', {}, [entry.variant + (which ? ' mean score ' + value.toFixed(2) : ' pass rate ' + pct(value))])]));
    });
    plot.append(svg('text', { x: x + band * 0.375, y: bottom + 13, 'text-anchor': 'middle', 'font-size': 11, fill: 'currentColor' }, [entry.variant]));
  });
}
function runsOf() { return data.result.results.flatMap(function (entry) { return entry.runs; }); }
function tokenChart(plot, width, height) {
  axes(plot, width, height, 'tokens per run', 'score');
  var runs = runsOf(), most = Math.max.apply(null, [1].concat(runs.map(function (run) { return run.tokens.total; })));
  yTicks(plot, width, quarters(1), function (value) { return (height - 30) - (height - 40) * value; }, function (value) { return value.toFixed(2); });
  xTicks(plot, height, quarters(most), function (value) { return 45 + (width - 60) * value / most; }, function (value) { return String(Math.round(value)); });
  runs.forEach(function (run) {
    var x = 45 + (width - 60) * run.tokens.total / most, y = (height - 30) - (height - 40) * run.score;
    plot.append(svg('circle', { class: 'point', cx: x, cy: y, r: 4, fill: colour(run.variant), 'fill-opacity': 0.7 }, [svg('title', {}, [run.variant + ' ' + run.id + ': ' + run.tokens.total + ' tokens, score ' + run.score.toFixed(2)])]));
  });
}
function latencyChart(plot, width, height) {
  axes(plot, width, height, 'latency (ms)', 'runs');
  var runs = runsOf(), most = Math.max.apply(null, [1].concat(runs.map(function (run) { return run.latencyMs; }))), buckets = 10;
  var counts = variants.map(function (variant) {
    var bins = new Array(buckets).fill(0);
    runs.filter(function (run) { return run.variant === variant; }).forEach(function (run) { bins[Math.min(buckets - 1, Math.floor(buckets * run.latencyMs / most))] += 1; });
    return bins;
  });
  var tallest = Math.max.apply(null, [1].concat(counts.flat())), slot = (width - 50) / buckets;
  yTicks(plot, width, countTicks(tallest), function (value) { return height - 30 - (height - 45) * value / tallest; }, String);
  xTicks(plot, height, quarters(most), function (value) { return 42 + (width - 50) * value / most; }, function (value) { return Math.round(value) + ''; });
  counts.forEach(function (bins, which) {
    bins.forEach(function (count, bin) {
      var barHeight = (height - 45) * count / tallest, barWidth = slot / variants.length;
      if (count > 0) plot.append(svg('rect', { class: 'bar', x: 42 + bin * slot + which * barWidth, y: height - 30 - barHeight, width: Math.max(1, barWidth - 1), height: barHeight, fill: colour(variants[which]) }, [svg('title', {}, [variants[which] + ': ' + count + ' runs up to ' + Math.round(most * (bin + 1) / buckets) + ' ms'])]));
    });
  });
}
function caseGrid() {
  var ids = [];
  data.result.results.forEach(function (entry) { if (ids.indexOf(entry.id) < 0) ids.push(entry.id); });
  var byKey = {};
  data.result.results.forEach(function (entry) { byKey[entry.id + '\u0000' + entry.variant] = entry; });
  var rows = ids.map(function (id) {
    return el('tr', {}, [el('td', {}, [id])].concat(variants.map(function (variant) {
      var entry = byKey[id + '\u0000' + variant];
      if (!entry) return el('td', { class: 'muted' }, ['-']);
      var cell = el('td', { class: 'cell ' + (entry.pass ? 'pass' : 'fail'), tabindex: 0, 'data-case': id, 'data-variant': variant }, [(entry.pass ? 'pass' : 'FAIL') + ' · ' + entry.score.toFixed(2)]);
      cell.addEventListener('click', function () { openCase(entry); });
      return cell;
    })));
  });
  return el('table', { id: 'cases' }, [el('thead', {}, [el('tr', {}, [el('th', {}, ['case'])].concat(variants.map(function (variant) { return el('th', {}, [variant]); })))]), el('tbody', {}, rows)]);
}
function openCase(entry) {
  var detail = document.getElementById('detail');
  var parts = [el('h2', {}, [entry.id + ' · ' + entry.variant + ' · ' + (entry.pass ? 'pass' : 'FAIL')])];
  entry.runs.forEach(function (run) {
    parts.push(el('h3', {}, ['run ' + run.runId + (entry.runs.length > 1 ? ' (repeat ' + (run.repeat + 1) + ')' : '')]));
    parts.push(el('ul', { class: 'grades' }, run.grades.map(function (grade) { return el('li', { class: grade.pass ? 'pass' : 'fail' }, [grade.grader + ' ' + grade.score.toFixed(2) + ': ' + grade.reason]); })));
    parts.push(el('p', { class: 'muted' }, ['stageloop show ' + run.runId + ' · stageloop replay ' + run.runId]));
    var view = data.views[run.runId], holder = el('div', { class: 'run' }, []);
    if (view) renderRun(view, holder, null); else holder.append(el('pre', { class: 'answer' }, [run.answer || '(no answer)']));
    parts.push(holder);
  });
  detail.replaceChildren.apply(detail, parts);
  detail.scrollIntoView();
}
document.getElementById('summary-holder').append(summaryTable());
document.getElementById('charts').append(chart('pass rate and mean score by variant', 'chart-score', scoreChart, [{ style: 'background:currentColor', text: 'pass rate' }, { style: 'background:currentColor;opacity:0.5', text: 'mean score' }]), chart('tokens against score, each run', 'chart-tokens', tokenChart), chart('latency distribution', 'chart-latency', latencyChart));
document.getElementById('cases-holder').append(caseGrid());
`;
