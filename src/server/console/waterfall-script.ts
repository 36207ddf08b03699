// Browser code of a run's waterfall: each stage's row with its model and tool calls under it, iterations folded to one
// summary row each (all but the last, once a run has more than two), waits for a person drawn short, and a legend.
export const waterfallScript = String.raw`
// A stage's colour says how it ended: a normal end of the loop is not an error, a pause is a pause.
function stageClass(item) {
  var signal = item.detail && item.detail.signal;
  if (item.summary === 'continue' || item.stage === null || !signal) return 'stage';
  if (signal.type === 'interrupt_run') return 'paused';
  if (signal.type === 'break_loop' && (signal.kind || 'completed') === 'completed') return 'ended';
  return 'steer';
}
// The one place that decides whether a stage gets a row of its own (its calls are drawn either way).
function stageGetsRow(item) { return item.kind === 'stage'; }
// The timeline as stage groups: a stage's calls are journaled before the stage's own entry (written when it ends), so
// each group is a stage and the calls made while it ran; calls after the last stage belong to one still running.
function stageGroups(timeline) {
  var groups = [], calls = [];
  timeline.forEach(function (item, index) {
    if (item.kind !== 'stage') { calls.push(item); return; }
    groups.push({ stage: item, index: index, calls: calls });
    calls = [];
  });
  if (calls.length) groups.push({ stage: null, index: timeline.length, calls: calls });
  return groups;
}
// The time a run spent waiting for a person (from its pause to the stage that resumed it) is drawn as a short
// hatched bar labelled with the wait, so a long wait does not squash every bar doing work.
function waitsOf(timeline) {
  var waits = [], pausedAt = null;
  timeline.forEach(function (item, index) {
    if (item.kind !== 'stage') return;
    if (pausedAt !== null) { waits.push({ index: index, from: pausedAt, to: item.at - (item.durationMs || 0) }); pausedAt = null; }
    if (stageClass(item) === 'paused') pausedAt = item.at;
  });
  return waits;
}
function timeScale(view, waits) {
  var start = view.run.createdAt, end = start, waited = 0;
  view.timeline.forEach(function (item) { end = Math.max(end, item.at); });
  waits.forEach(function (wait) { waited += wait.to - wait.from; });
  var working = Math.max(1, end - start - waited), shownWait = working * 0.08;
  var total = working + waits.length * shownWait;
  return function place(at) {
    var shift = 0;
    waits.forEach(function (wait) { if (at >= wait.to) shift += (wait.to - wait.from) - shownWait; else if (at > wait.from) shift += (at - wait.from) - shownWait * (at - wait.from) / (wait.to - wait.from); });
    return 100 * (at - start - shift) / total;
  };
}
var waterfallFolds = {};
function counted(count, noun) { return count + ' ' + noun + (count === 1 ? '' : 's'); }
function waterfallRows(view) {
  var waits = waitsOf(view.timeline), place = timeScale(view, waits), previous = view.run.createdAt;
  function row(rows, labelText, className, from, to, title, labelClass) {
    var bar = el('div', { class: 'bar ' + className, title: title });
    bar.style.left = place(from) + '%';
    bar.style.width = Math.max(0, place(to) - place(from)) + '%';
    rows.push(el('div', { class: 'label' + (labelClass ? ' ' + labelClass : ''), title: title }, [labelText]));
    rows.push(el('div', { class: 'track' }, [bar]));
  }
  // A model call's reasoning, when the provider sent any, opens under its row.
  function reasoningRow(rows, item) {
    var reasoning = item.detail && item.detail.response && item.detail.response.reasoning;
    if (typeof reasoning !== 'string' || reasoning === '') return;
    rows.push(el('details', { class: 'call-detail' }, [el('summary', {}, ['reasoning']), el('pre', { class: 'reasoning' }, [reasoning])]));
  }
  var blocks = [];
  stageGroups(view.timeline).forEach(function (group) {
    var first = group.stage || group.calls[0];
    var key = first.zone === 'iteration' ? 'iteration ' + first.iteration : first.zone;
    var block = blocks[blocks.length - 1];
    if (!block || block.key !== key) blocks.push(block = { key: key, iteration: first.zone === 'iteration', rows: [], from: previous, to: previous, stages: 0, calls: 0 });
    var wait = waits.filter(function (entry) { return entry.index === group.index; })[0];
    if (wait) row(block.rows, 'waiting for a decision · ' + ms(wait.to - wait.from), 'waiting', wait.from, wait.to, 'the run waited for a person', '');
    var stage = group.stage, own = stage ? stage.durationMs || 0 : 0;
    var stageFrom = stage ? stage.at - own : previous;
    if (stage && stageGetsRow(stage)) {
      // A resumed stage's duration leaves out the wait before it (the timeline counts that as waitedMs).
      row(block.rows, (stage.stage || 'finalize') + ' · ' + ms(own), stageClass(stage), stageFrom, stage.at, stage.summary, '');
      block.stages += 1;
    }
    var callFrom = stageFrom;
    group.calls.forEach(function (item) {
      row(block.rows, item.kind + ' · ' + item.summary, item.kind, callFrom, item.at, item.summary, 'call');
      if (item.kind === 'model') reasoningRow(block.rows, item);
      callFrom = item.at;
      block.calls += 1;
    });
    previous = stage ? stage.at : callFrom;
    block.to = previous;
  });
  var iterations = blocks.filter(function (block) { return block.iteration; });
  var lastIteration = iterations[iterations.length - 1];
  return blocks.map(function (block) {
    var grid = el('div', { class: 'wf-rows' }, block.rows);
    if (!block.iteration) return el('div', { class: 'wf-block' }, [el('div', { class: 'zone' }, [block.key]), grid]);
    // Iterations fold to one row (its span on the same time axis) once a run has more than two; the last stays open.
    var foldKey = view.run.runId + '|' + block.key;
    var open = waterfallFolds[foldKey] !== undefined ? waterfallFolds[foldKey] : iterations.length <= 2 || block === lastIteration;
    var span = el('div', { class: 'bar iteration-span' });
    span.style.left = place(block.from) + '%';
    span.style.width = Math.max(0, place(block.to) - place(block.from)) + '%';
    var summary = el('summary', { class: 'wf-rows' }, [
      el('div', { class: 'zone' }, [block.key + ' · ' + counted(block.stages, 'stage') + ', ' + counted(block.calls, 'call') + ' · ' + ms(block.to - block.from)]),
      el('div', { class: 'track' }, [span]),
    ]);
    var details = el('details', { class: 'wf-block iteration', 'data-iteration': block.key }, [summary, grid]);
    details.open = open;
    details.addEventListener('toggle', function () { waterfallFolds[foldKey] = details.open; });
    return details;
  });
}
// What each colour means, drawn once above a waterfall.
function waterfallLegend() {
  var keys = [['stage', 'stage'], ['model', 'model call'], ['tool', 'tool call'], ['decision', 'decision'], ['ended', 'ended the loop'], ['steer', 'stopped the run'], ['paused', 'paused for a person'], ['waiting', 'waiting for a person']];
  return el('div', { class: 'legend' }, keys.map(function (key) {
    return el('span', { class: 'legend-item' }, [el('span', { class: 'swatch key-' + key[0] }), key[1]]);
  }));
}
function waterfall(view) {
  return el('div', { class: 'waterfall' }, [waterfallLegend()].concat(waterfallRows(view)));
}
`;
