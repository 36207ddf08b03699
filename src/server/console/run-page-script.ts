// Browser code that draws one run (facts, answer, plan, verdicts, replans, the waterfall) from GET /v1/runs/:id;
// the console and `stageloop show --html` both use it. Plain ES2020 with no build step (and no template literals).
export const runPageScript = String.raw`
function el(tag, attributes, children) {
  var node = document.createElement(tag);
  Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
  (children || []).forEach(function (child) { node.append(child instanceof Node ? child : document.createTextNode(String(child))); });
  return node;
}
function ms(value) { return value >= 1000 ? (value / 1000).toFixed(2) + ' s' : Math.round(value) + ' ms'; }
function waterfallRows(view) {
  var start = view.run.createdAt, end = start;
  view.timeline.forEach(function (item) { end = Math.max(end, item.at); });
  var total = Math.max(1, end - start), rows = [], zoneKey = null, previous = start;
  view.timeline.forEach(function (item) {
    var key = item.zone === 'iteration' ? 'iteration ' + item.iteration : item.zone;
    if (key !== zoneKey) { rows.push(el('div', { class: 'zone' }, [key])); zoneKey = key; }
    var from = item.kind === 'stage' ? item.at - (item.durationMs || 0) : previous;
    var steer = item.kind === 'stage' && item.summary !== 'continue' && item.stage !== null;
    var label = item.kind === 'stage' ? (item.stage || 'finalize') + ' · ' + ms(item.durationMs || 0) : item.kind + ' · ' + item.summary;
    var bar = el('div', { class: 'bar ' + (item.kind === 'stage' ? (steer ? 'steer' : 'stage') : item.kind), title: item.summary });
    bar.style.left = (100 * (from - start) / total) + '%';
    bar.style.width = (100 * Math.max(0, item.at - from) / total) + '%';
    rows.push(el('div', { class: 'label' + (item.kind === 'stage' ? '' : ' call'), title: item.summary }, [label]));
    rows.push(el('div', { class: 'track' }, [bar]));
    previous = item.at;
  });
  return rows;
}
function planList(plan) {
  if (!plan || !plan.steps) return null;
  // Steps in waves: a step's wave follows the latest wave of the steps it depends on; one wave may run side by side.
  var depth = {}, byId = {};
  plan.steps.forEach(function (step) { if (step.id) byId[step.id] = step; });
  function depthOf(step, seen) {
    if (!step.id || !step.dependsOn || step.dependsOn.length === 0) return 0;
    if (depth[step.id] !== undefined) return depth[step.id];
    if (seen[step.id]) return 0;
    seen[step.id] = true;
    var most = 0;
    step.dependsOn.forEach(function (id) { if (byId[id]) most = Math.max(most, depthOf(byId[id], seen) + 1); });
    return (depth[step.id] = most);
  }
  var waves = [];
  plan.steps.forEach(function (step) { var d = depthOf(step, {}); (waves[d] = waves[d] || []).push(step); });
  return el('ol', { class: 'plan' }, waves.filter(Boolean).map(function (wave) {
    return el('li', { class: 'wave' }, [el('ul', {}, wave.map(function (step) {
      var after = step.dependsOn && step.dependsOn.length ? ' ← ' + step.dependsOn.join(', ') : '';
      return el('li', { class: 'step-' + step.status }, [(step.id ? step.id + after + ': ' : '') + step.description + ' — ' + step.status.replace('_', ' ')]);
    }))]);
  }));
}
function verdictList(slots) {
  var items = [];
  ((slots.evaluate && slots.evaluate.history) || []).forEach(function (entry) { items.push('iteration ' + entry.iteration + ': ' + entry.verdict + ' — ' + entry.reason); });
  ((slots.replan && slots.replan.decisions) || []).forEach(function (entry) { items.push('after ' + (entry.ended && entry.ended.length ? 'steps ' + entry.ended.join(', ') : 'step ' + entry.afterStep) + ': ' + (entry.applied ? 'replanned' : 'kept the plan') + ' — ' + entry.reason); });
  return items.length ? el('ul', { class: 'verdicts' }, items.map(function (text) { return el('li', {}, [text]); })) : null;
}
function renderRun(view, root, live) {
  var run = view.run, outcome = run.outcome, result = (outcome && outcome.result) || {};
  var usage = result.usage || {};
  var answer = (outcome && outcome.answer) || (live && live.answer) || run.answer;
  var facts = [
    el('span', {}, ['status ', el('span', { class: 'status status-' + run.status, 'data-status': run.status }, [run.status])]),
    el('span', {}, ['pipeline ' + run.pipeline]),
    el('span', {}, ['iterations ' + ((outcome && outcome.iterations) || run.iterations)]),
    el('span', {}, ['tokens ' + ((outcome && outcome.tokens) || run.tokens) + (usage.inputTokens !== undefined ? ' (' + usage.inputTokens + ' in, ' + usage.outputTokens + ' out)' : '')]),
  ];
  if (typeof result.costUsd === 'number') facts.push(el('span', {}, ['cost $' + result.costUsd.toFixed(4)]));
  var parts = [
    el('h2', {}, ['Run ' + run.runId]),
    el('p', { class: 'task' }, [String(run.input.task || '')]),
    el('div', { class: 'facts' }, facts),
  ];
  if (outcome) parts.push(el('p', { class: 'stop' }, ['stop: ' + outcome.stopReason.kind + (outcome.stopReason.stage ? ' at ' + outcome.stopReason.stage : '') + ' — ' + outcome.stopReason.message]));
  parts.push(el('h2', {}, ['Answer']), el('pre', { class: 'answer' }, [answer || (outcome ? '(none)' : '…')]));
  var plan = planList((live && live.plan) || view.slots.plan);
  if (plan) parts.push(el('h2', {}, ['Plan']), plan);
  var verdicts = verdictList(view.slots);
  if (verdicts) parts.push(el('h2', {}, ['Verdicts and replans']), verdicts);
  parts.push(el('h2', {}, ['Timeline']), el('div', { class: 'waterfall' }, waterfallRows(view)));
  root.replaceChildren.apply(root, parts);
}
`;
