// Browser code of the console: the run list (read once, then kept current by the server's feed of runs that start
// and end), the start form, and a run page that follows the run's event stream. Streams are read with fetch, so the
// bearer token can be sent; a dropped one is opened again (the run page's with Last-Event-ID). No polling.
/** The run events the console's run page reads by name (`event.type === 'answer'`): a test checks them against RunEvents. */
export const consoleEventTypes = ['answer', 'plan_created', 'plan_updated', 'stage_finished', 'run_finished'] as const;

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
var listed = [], waiting = [], waitingOnly = false;
function rowOf(run) {
  var mark = evalMark(run);
  var row = el('tr', { class: 'run-row' + (mark ? ' eval-run' : ''), 'data-run': run.runId }, [
    el('td', {}, [el('span', { class: 'status status-' + run.status }, [statusWords(run.status)])]),
    el('td', { class: 'hide-narrow' }, [run.pipeline]),
    el('td', { class: 'task' }, (mark ? [mark, ' '] : []).concat([run.task])),
    el('td', { class: 'muted' }, [age(run.createdAt)]),
    el('td', { class: 'hide-narrow' }, [String(run.tokens)]),
  ]);
  row.addEventListener('click', function () { location.hash = '#/runs/' + run.runId; });
  return row;
}
function drawList() {
  var rows = document.getElementById('run-rows');
  var shown = waitingOnly ? waiting : listed;
  rows.replaceChildren.apply(rows, shown.length ? shown.map(rowOf) : [el('tr', {}, [el('td', { colspan: '5', class: 'muted' }, [waitingOnly ? 'No run is waiting for you.' : 'No runs yet.'])])]);
  document.getElementById('waiting-count').textContent = waiting.length ? String(waiting.length) + (waiting.length >= 50 ? '+' : '') : '0';
}
// The runs paused for a person's decision (the "waiting for me" filter and its count), read apart from the latest runs.
function refreshWaiting() {
  return api('/v1/runs?status=interrupted&limit=50').then(function (body) { waiting = body.runs; drawList(); }).catch(showError);
}
function refreshList() {
  return api('/v1/runs?limit=50').then(function (body) {
    listed = body.runs;
    drawList();
    showError(null);
    return refreshWaiting();
  }).catch(showError);
}
function placeIn(list, run) {
  list = list.filter(function (known) { return known.runId !== run.runId; });
  var at = list.findIndex(function (known) { return known.createdAt < run.createdAt; });
  list.splice(at === -1 ? list.length : at, 0, run);
  return list.slice(0, 50);
}
// One run that started or ended: its row replaced, or put in its place (newest first).
function placeRun(run) {
  listed = placeIn(listed, run);
  if (run.status === 'interrupted') waiting = placeIn(waiting, run);
  else waiting = waiting.filter(function (known) { return known.runId !== run.runId; });
  drawList();
}
// Reads an event stream's blocks, calling onBlock(fields) for each; resolves when the stream ends.
function readStream(path, headers, signal, onBlock) {
  headers = Object.assign({ accept: 'text/event-stream' }, headers);
  if (token) headers.authorization = 'Bearer ' + token;
  return fetch(path, { headers: headers, signal: signal }).then(function (response) {
    if (!response.ok) throw new Error('the event stream answered ' + response.status);
    var reader = response.body.getReader(), decoder = new TextDecoder(), buffer = '';
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) return;
        buffer += decoder.decode(chunk.value, { stream: true });
        var blocks = buffer.split('\n\n');
        buffer = blocks.pop();
        blocks.forEach(function (block) {
          var fields = {};
          block.split('\n').forEach(function (line) { var at = line.indexOf(':'); if (at > 0) fields[line.slice(0, at)] = line.slice(at + 1).trim(); });
          onBlock(fields);
        });
        return pump();
      });
    }
    return pump();
  });
}
var listFeed = null;
function watchList() {
  if (listFeed) return;
  var controller = new AbortController();
  listFeed = controller;
  var opened = false;
  readStream('/v1/runs', {}, controller.signal, function (fields) {
    // The list is read once the feed is on (its first block), so no run falls between the two.
    if (!opened) { opened = true; refreshList(); }
    if (fields.event === 'run' && fields.data) placeRun(JSON.parse(fields.data));
  }).catch(function (error) { if (!controller.signal.aborted) showError(error); }).then(function () {
    // The feed dropped (the server restarted, say): open it again, and read the list afresh, after a pause.
    if (controller.signal.aborted) return;
    listFeed = null;
    setTimeout(function () { if (!document.getElementById('list-view').hidden) watchList(); }, 1000);
  });
}
function unwatchList() {
  if (listFeed) listFeed.abort();
  listFeed = null;
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
  unwatchList();
  document.getElementById('list-view').hidden = true;
  document.getElementById('run-view').hidden = false;
  // One view request at a time: events that come while one is out ask for one more after it, not one each.
  var drawing = null, again = false;
  function redraw() {
    if (drawing) { again = true; return drawing; }
    drawing = api('/v1/runs/' + encodeURIComponent(runId)).then(function (view) {
      renderRun(view, root, live);
      drawDecisions(view);
      return view;
    }).finally(function () {
      drawing = null;
      if (again && !controller.signal.aborted) { again = false; redraw().catch(showError); }
    });
    return drawing;
  }
  function onEvent(event) {
    if (event.type === 'answer') live.answer = event.data.text;
    if (event.type === 'plan_created' || event.type === 'plan_updated') live.plan = { steps: event.data.steps };
    if (event.type === 'stage_finished' || event.type === 'run_finished' || event.type === 'answer') redraw().catch(showError);
  }
  function stream() {
    var ended = false, headers = {};
    if (lastSeq > 0) headers['last-event-id'] = String(lastSeq);
    return readStream('/v1/runs/' + encodeURIComponent(runId) + '/events', headers, controller.signal, function (fields) {
      if (fields.id) lastSeq = Number(fields.id);
      if (fields.event === 'end') ended = true;
      else if (fields.event !== 'stored' && fields.data) onEvent(JSON.parse(fields.data));
      else if (fields.event === 'stored') redraw().catch(showError);
    }).then(function () {
      // A dropped stream (the server restarted, say) is opened again after a pause, from the last event read.
      if (!ended && !controller.signal.aborted) return new Promise(function (resolve) { setTimeout(resolve, 1000); }).then(stream);
      // Ended: a run decided here goes on in this server's host, so following the new stream after a decision is enough.
      if (!controller.signal.aborted) return redraw();
    }).catch(function (error) { if (!controller.signal.aborted) showError(error); });
  }
  redraw().then(stream).catch(showError);
}
function drawDecisions(view) {
  var box = document.getElementById('decisions');
  box.replaceChildren();
  if (view.run.status !== 'interrupted') return;
  box.append(el('h2', {}, ['Waiting for your approval']));
  var pending = (view.run.outcome && view.run.outcome.result && view.run.outcome.result.pending) || [];
  // One card per pending call: what it is, why it waits, its arguments (editable: an edit approves the edited call).
  pending.forEach(function (item) {
    var callId = item.callId || item.id;
    // An MCP server's question (kind elicitation): the box holds its form's fields, and approving sends the answer.
    var asks = item.kind === 'elicitation';
    var given = asks ? formSkeleton(item.requestedSchema) : typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments || {});
    var shown = given;
    try { shown = JSON.stringify(JSON.parse(given), null, 2); } catch (error) { /* not JSON: shown as the model sent it */ }
    // As many rows as the JSON has lines (within reason), so the arguments show whole without scrolling.
    var lines = Math.min(20, Math.max(3, shown.split('\n').length + 1));
    var argumentsBox = el('textarea', { class: 'arguments', rows: String(lines), 'data-call': callId, spellcheck: 'false', 'aria-label': 'arguments of ' + callId }, []);
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
      decide(changed || asks ? { approve: true, arguments: edited } : { approve: true });
    });
    reject.addEventListener('click', function () {
      var text = message.value.trim();
      decide(text ? { approve: false, reason: text } : { approve: false });
    });
    box.append(el('div', { class: 'pending-call', 'data-call': callId }, [
      el('strong', {}, ['waiting for a decision: ' + (item.tool || item.name || 'a call')]),
      el('span', { class: 'call-id muted' }, ['call ' + callId]),
      el('span', { class: 'why' }, [item.reason || '']),
    ].concat(asks && item.url ? [el('span', { class: 'url' }, ['open: ' + item.url])] : [],
      typeof item.agent === 'string' ? [el('span', { class: 'agent' }, ['asked by agent ' + item.agent])] : [], [
      argumentsBox,
      el('div', {}, [approve, ' ', reject, ' ', message]),
    ])));
  });
}
/** The fields of a server's form as JSON to fill in: each field's default, else an empty value of its type. */
function formSkeleton(schema) {
  var fields = {};
  var properties = (schema && schema.properties) || {};
  Object.keys(properties).forEach(function (name) {
    var field = properties[name] || {};
    var empty = field.type === 'boolean' ? false : field.type === 'number' || field.type === 'integer' ? 0 : field.type === 'array' ? [] : '';
    fields[name] = field.default !== undefined ? field.default : empty;
  });
  return JSON.stringify(fields);
}
function route() {
  var match = /^#\/runs\/(.+)$/.exec(location.hash);
  if (match) return followRun(decodeURIComponent(match[1]));
  if (following) following.abort();
  following = null;
  document.getElementById('list-view').hidden = false;
  document.getElementById('run-view').hidden = true;
  watchList();
}
document.getElementById('token').value = token;
document.getElementById('token').addEventListener('change', function (event) {
  token = event.target.value.trim();
  localStorage.setItem('stageloop-token', token);
  loadPipelines(); unwatchList(); if (!document.getElementById('list-view').hidden) watchList();
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
document.getElementById('waiting-only').addEventListener('change', function (event) {
  waitingOnly = event.target.checked;
  drawList();
});
window.addEventListener('hashchange', route);
loadPipelines();
route();
`;
