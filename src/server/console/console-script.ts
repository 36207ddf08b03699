// Browser code of the console: the run list (polled), the start form, and a run page that follows the run's event
// stream (fetch, so the bearer token can be sent; it resumes with Last-Event-ID after a dropped connection).
export const consoleScript = String.raw`
var token = localStorage.getItem('stageloop-token') || '';
function api(path, init) {
  init = init || {};
  init.headers = Object.assign({ 'content-type': 'application/json' }, init.headers || {});
  if (token) init.headers.authorization = 'Bearer ' + token;
  return fetch(path, init).then(function (response) {
    return response.json().then(function (body) {
      if (!response.ok) throw new Error((body.error && body.error.message) || response.statusText);
      return body;
    });
  });
}
function showError(error) { document.getElementById('error').textContent = error ? String(error.message || error) : ''; }
function age(at) { var seconds = Math.round((Date.now() - at) / 1000); return seconds < 60 ? seconds + ' s ago' : Math.round(seconds / 60) + ' min ago'; }
function refreshList() {
  return api('/v1/runs?limit=50').then(function (body) {
    var rows = body.runs.map(function (run) {
      var row = el('tr', { class: 'run-row', 'data-run': run.runId }, [
        el('td', {}, [el('span', { class: 'status status-' + run.status }, [run.status])]),
        el('td', { class: 'hide-narrow' }, [run.pipeline]),
        el('td', { class: 'task' }, [run.task]),
        el('td', { class: 'muted' }, [age(run.createdAt)]),
        el('td', { class: 'hide-narrow' }, [String(run.tokens)]),
      ]);
      row.addEventListener('click', function () { location.hash = '#/runs/' + run.runId; });
      return row;
    });
    document.getElementById('run-rows').replaceChildren.apply(document.getElementById('run-rows'), rows);
    showError(null);
  }).catch(showError);
}
function loadPipelines() {
  return api('/v1/pipelines').then(function (body) {
    var select = document.getElementById('pipeline');
    select.replaceChildren.apply(select, body.pipelines.map(function (pipeline) {
      var option = el('option', { value: pipeline.name }, [pipeline.name]);
      if (pipeline.name === body.default) option.selected = true;
      return option;
    }));
  }).catch(showError);
}
var following = null;
function followRun(runId) {
  if (following) following.abort();
  var controller = new AbortController(), live = { answer: null, plan: null }, lastSeq = 0, root = document.getElementById('run');
  following = controller;
  document.getElementById('list-view').hidden = true;
  document.getElementById('run-view').hidden = false;
  function redraw() {
    return api('/v1/runs/' + encodeURIComponent(runId)).then(function (view) {
      renderRun(view, root, live);
      drawDecisions(view);
      return view;
    });
  }
  function onEvent(event) {
    if (event.type === 'answer') live.answer = event.data.text;
    if (event.type === 'plan_created' || event.type === 'plan_updated') live.plan = { steps: event.data.steps };
    if (event.type === 'stage_finished' || event.type === 'run_finished' || event.type === 'answer') redraw().catch(showError);
  }
  function stream() {
    var headers = { accept: 'text/event-stream' };
    if (token) headers.authorization = 'Bearer ' + token;
    if (lastSeq > 0) headers['last-event-id'] = String(lastSeq);
    return fetch('/v1/runs/' + encodeURIComponent(runId) + '/events', { headers: headers, signal: controller.signal }).then(function (response) {
      var reader = response.body.getReader(), decoder = new TextDecoder(), buffer = '', ended = false;
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return ended;
          buffer += decoder.decode(chunk.value, { stream: true });
          var blocks = buffer.split('\n\n');
          buffer = blocks.pop();
          blocks.forEach(function (block) {
            var fields = {};
            block.split('\n').forEach(function (line) { var at = line.indexOf(':'); if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1).trim(); });
            if (fields.id) lastSeq = Number(fields.id);
            if (fields.event === 'end') ended = true;
            else if (fields.data) onEvent(JSON.parse(fields.data));
          });
          return pump();
        });
      }
      return pump();
    }).then(function (ended) {
      var again = function () { return new Promise(function (resolve) { setTimeout(resolve, 1000); }).then(stream); };
      if (!ended && !controller.signal.aborted) return again();
      // A run this server continues in the background (after a decision) has no live stream here: look again until it ends.
      return redraw().then(function (view) { if (view.run.status === 'running' && !controller.signal.aborted) return again(); });
    }).catch(function (error) { if (!controller.signal.aborted) showError(error); });
  }
  redraw().then(stream).catch(showError);
}
function drawDecisions(view) {
  var box = document.getElementById('decisions');
  box.replaceChildren();
  if (view.run.status !== 'interrupted') return;
  var pending = (view.run.outcome && view.run.outcome.result && view.run.outcome.result.pending) || [];
  // One card per pending call: what it is, why it waits, its arguments (editable: an edit approves the edited call).
  pending.forEach(function (item) {
    var callId = item.callId || item.id;
    var given = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments || {});
    var shown = given;
    try { shown = JSON.stringify(JSON.parse(given), null, 2); } catch (error) { /* not JSON: shown as the model sent it */ }
    var argumentsBox = el('textarea', { class: 'arguments', 'data-call': callId, spellcheck: 'false', 'aria-label': 'arguments of ' + callId }, []);
    argumentsBox.value = shown;
    var message = el('input', { class: 'message', 'data-call': callId, placeholder: 'why not (the model reads this)', 'aria-label': 'rejection message for ' + callId }, []);
    function decide(decision) {
      decision.callId = callId;
      api('/v1/runs/' + encodeURIComponent(view.run.runId) + '/decisions', { method: 'POST', body: JSON.stringify({ decisions: [decision] }) })
        .then(function () { followRun(view.run.runId); }).catch(showError);
    }
    var approve = el('button', { class: 'approve', 'data-call': callId }, ['Approve']);
    var reject = el('button', { class: 'reject', 'data-call': callId }, ['Reject']);
    approve.addEventListener('click', function () {
      var edited = argumentsBox.value.trim();
      var changed = edited !== shown.trim();
      if (changed) { try { JSON.parse(edited); } catch (error) { return showError('the arguments are not JSON: ' + error.message); } }
      decide(changed ? { approve: true, arguments: edited } : { approve: true });
    });
    reject.addEventListener('click', function () {
      var text = message.value.trim();
      decide(text ? { approve: false, reason: text } : { approve: false });
    });
    box.append(el('div', { class: 'pending-call', 'data-call': callId }, [
      el('strong', {}, ['waiting for a decision: ' + (item.tool || item.name || 'a call')]),
      el('span', { class: 'call-id muted' }, ['call ' + callId]),
      el('span', { class: 'why' }, [item.reason || '']),
      argumentsBox,
      el('div', {}, [approve, ' ', reject, ' ', message]),
    ]));
  });
}
function route() {
  var match = /^#\/runs\/(.+)$/.exec(location.hash);
  if (match) return followRun(decodeURIComponent(match[1]));
  if (following) following.abort();
  following = null;
  document.getElementById('list-view').hidden = false;
  document.getElementById('run-view').hidden = true;
  refreshList();
}
document.getElementById('token').value = token;
document.getElementById('token').addEventListener('change', function (event) {
  token = event.target.value.trim();
  localStorage.setItem('stageloop-token', token);
  loadPipelines(); refreshList();
});
document.getElementById('start').addEventListener('submit', function (event) {
  event.preventDefault();
  var task = document.getElementById('task').value;
  var request = { task: task, pipeline: document.getElementById('pipeline').value };
  var approveTools = document.getElementById('approve-tools').value.split(',').map(function (name) { return name.trim(); }).filter(Boolean);
  if (approveTools.length) request.approveTools = approveTools.indexOf('all') >= 0 ? 'all' : approveTools;
  api('/v1/runs', { method: 'POST', body: JSON.stringify(request) })
    .then(function (body) { document.getElementById('task').value = ''; location.hash = '#/runs/' + body.runId; }).catch(showError);
});
window.addEventListener('hashchange', route);
setInterval(function () { if (!document.getElementById('list-view').hidden) refreshList(); }, 2000);
loadPipelines();
route();
`;
