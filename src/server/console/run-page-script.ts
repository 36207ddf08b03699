// Browser code that draws one run (facts, answer, plan, verdicts, replans, the waterfall) from GET /v1/runs/:id;
// the console and `stageloop show --html` both use it. Plain ES2020 with no build step (and no template literals).
import { waterfallScript } from './waterfall-script.js';

export const runPageScript = String.raw`
function el(tag, attributes, children) {
  var node = document.createElement(tag);
  Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
  (children || []).forEach(function (child) { node.append(child instanceof Node ? child : document.createTextNode(String(child))); });
  return node;
}
function ms(value) { return value >= 1000 ? (value / 1000).toFixed(2) + ' s' : Math.round(value) + ' ms'; }
// A status in words: a paused run waits for a person's approval.
function statusWords(status) { return status === 'interrupted' ? 'waiting for approval' : status; }
function statusBadge(status) { return el('span', { class: 'status status-' + status, 'data-status': status }, [statusWords(status)]); }
// An eval's run (recorded with options.eval): which eval, case and variant.
function evalMark(run) {
  var mark = run.eval || (run.options && run.options.eval);
  if (!mark || typeof mark !== 'object') return null;
  return el('span', { class: 'eval-mark', title: 'eval ' + mark.id + ' · case ' + mark.case + ' · variant ' + mark.variant }, ['eval · ' + mark.case + ' · ' + mark.variant]);
}
function planList(plan) {
  if (!plan || !plan.steps) return null;
  return planLevel(plan.steps, undefined);
}
// One plan level (the run's own steps, or a step's sub-steps) in waves: a step's wave follows the latest wave of the
// steps it depends on; one wave may run side by side. A step with a sub-plan holds its sub-steps' waves, nested.
function planLevel(all, parent) {
  var steps = all.filter(function (step) { return (step.parent || undefined) === parent; });
  var depth = {}, byId = {};
  steps.forEach(function (step) { if (step.id) byId[step.id] = step; });
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
  steps.forEach(function (step) { var d = depthOf(step, {}); (waves[d] = waves[d] || []).push(step); });
  return el('ol', { class: parent === undefined ? 'plan' : 'plan sub-plan', 'data-parent': parent || '' }, waves.filter(Boolean).map(function (wave) {
    return el('li', { class: 'wave' }, [el('ul', {}, wave.map(function (step) {
      var after = step.dependsOn && step.dependsOn.length ? ' ← ' + step.dependsOn.join(', ') : '';
      var text = (step.id ? step.id + after + ': ' : '') + step.description + ' — ' + step.status.replace('_', ' ');
      var sub = step.id && all.some(function (child) { return child.parent === step.id; });
      return el('li', { class: 'step-' + step.status, 'data-step': step.id || '' }, sub ? [text, planLevel(all, step.id)] : [text]);
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
    el('span', {}, ['status ', statusBadge(run.status)]),
    el('span', {}, ['pipeline ' + run.pipeline]),
    el('span', {}, ['iterations ' + ((outcome && outcome.iterations) || run.iterations)]),
    el('span', {}, ['tokens ' + ((outcome && outcome.tokens) || run.tokens) + (usage.inputTokens !== undefined ? ' (' + usage.inputTokens + ' in, ' + usage.outputTokens + ' out)' : '')]),
  ];
  if (typeof result.costUsd === 'number') facts.push(el('span', {}, ['cost $' + result.costUsd.toFixed(4)]));
  var mark = evalMark(run);
  if (mark) facts.push(mark);
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
  parts.push(el('h2', {}, ['Timeline']), waterfall(view));
  if (view.children && view.children.length) parts.push(el('h2', {}, ['Agents']), childRuns(view.children));
  root.replaceChildren.apply(root, parts);
}
// The runs this run's tool calls started (agents, handoffs), inline and folded: each opens to its own answer and
// waterfall, and to its own children.
function childRuns(children) {
  return el('div', { class: 'children' }, children.map(function (child) {
    var run = child.view.run, outcome = run.outcome;
    var title = (child.agent ? 'agent ' + child.agent + ' · ' : '') + 'call ' + child.callId + ' · ' + statusWords(run.status);
    var body = [
      el('summary', {}, [title]),
      el('pre', { class: 'answer' }, [(outcome && outcome.answer) || run.answer || (outcome ? '(none)' : '…')]),
      waterfall(child.view),
    ];
    if (child.view.children && child.view.children.length) body.push(childRuns(child.view.children));
    return el('details', { class: 'child-run', 'data-run': run.runId }, body);
  }));
}
${waterfallScript}`;
