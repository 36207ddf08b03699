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
// A stage's colour says how it ended: a normal end of the loop is not an error, a pause is a pause.
function stageClass(item) {
  var signal = item.detail && item.detail.signal;
  if (item.summary === 'continue' || item.stage === null || !signal) return 'stage';
  if (signal.type === 'interrupt_run') return 'paused';
  if (signal.type === 'break_loop' && (signal.kind || 'completed') === 'completed') return 'ended';
  return 'steer';
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
function waterfallRows(view) {
  var start = view.run.createdAt, end = start, waits = waitsOf(view.timeline), waited = 0;
  view.timeline.forEach(function (item) { end = Math.max(end, item.at); });
  waits.forEach(function (wait) { waited += wait.to - wait.from; });
  var working = Math.max(1, end - start - waited), shownWait = working * 0.08;
  var total = working + waits.length * shownWait;
  function place(at) {
    var shift = 0;
    waits.forEach(function (wait) { if (at >= wait.to) shift += (wait.to - wait.from) - shownWait; else if (at > wait.from) shift += (at - wait.from) - shownWait * (at - wait.from) / (wait.to - wait.from); });
    return 100 * (at - start - shift) / total;
  }
  var rows = [], zoneKey = null, previous = start;
  function addRow(labelText, className, from, to, title, isCall) {
    var bar = el('div', { class: 'bar ' + className, title: title });
    bar.style.left = place(from) + '%';
    bar.style.width = Math.max(0, place(to) - place(from)) + '%';
    rows.push(el('div', { class: 'label' + (isCall ? ' call' : ''), title: title }, [labelText]));
    rows.push(el('div', { class: 'track' }, [bar]));
  }
  view.timeline.forEach(function (item, index) {
    var key = item.zone === 'iteration' ? 'iteration ' + item.iteration : item.zone;
    if (key !== zoneKey) { rows.push(el('div', { class: 'zone' }, [key])); zoneKey = key; }
    var wait = waits.filter(function (entry) { return entry.index === index; })[0];
    if (wait) addRow('waiting for a decision · ' + ms(wait.to - wait.from), 'waiting', wait.from, wait.to, 'the run waited for a person', false);
    if (item.kind === 'stage') {
      // A resumed stage's duration leaves out the wait before it (the timeline counts that as waitedMs).
      var own = item.durationMs || 0;
      addRow((item.stage || 'finalize') + ' · ' + ms(own), stageClass(item), item.at - own, item.at, item.summary, false);
    } else {
      addRow(item.kind + ' · ' + item.summary, item.kind, previous, item.at, item.summary, true);
    }
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
  if (view.children && view.children.length) parts.push(el('h2', {}, ['Agents']), childRuns(view.children));
  root.replaceChildren.apply(root, parts);
}
// The runs this run's tool calls started (agents, handoffs), inline and folded: each opens to its own answer and
// waterfall, and to its own children.
function childRuns(children) {
  return el('div', { class: 'children' }, children.map(function (child) {
    var run = child.view.run, outcome = run.outcome;
    var title = (child.agent ? 'agent ' + child.agent + ' · ' : '') + 'call ' + child.callId + ' · ' + run.status;
    var body = [
      el('summary', {}, [title]),
      el('pre', { class: 'answer' }, [(outcome && outcome.answer) || run.answer || (outcome ? '(none)' : '…')]),
      el('div', { class: 'waterfall' }, waterfallRows(child.view)),
    ];
    if (child.view.children && child.view.children.length) body.push(childRuns(child.view.children));
    return el('details', { class: 'child-run', 'data-run': run.runId }, body);
  }));
}
`;
