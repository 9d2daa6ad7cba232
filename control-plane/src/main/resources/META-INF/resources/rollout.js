'use strict';
// The rollout page (rollout.html?id=…): waves as progress bars, per-node states paged, the
// timeline live from the rollout's SSE stream, and the operator's actions.
(() => {
  const { el, esc } = Fw;
  const id = Fw.param('id');
  const base = `/api/v1/rollouts/${encodeURIComponent(id || '')}`;
  const PAGE_SIZE = 50;
  const TIMELINE_BACKLOG = 40;
  const TIMELINE_MAX = 300;
  const STATES = ['pending', 'in-flight', 'succeeded', 'failed'];
  const state = { page: 0, summary: null, who: null, lastSeq: 0, seen: new Set() };

  /** Which actions apply in which state (the engine decides; this only keeps buttons honest). */
  const APPLIES = {
    pause: (s) => s.state === 'running',
    resume: (s) => s.state === 'paused',
    promote: (s) => s.state === 'running' && s.awaitingPromotion,
    abort: (s) => ['created', 'running', 'paused', 'rolling-back'].includes(s.state),
    rollback: (s) => s.state === 'running' || s.state === 'paused',
  };
  const EXPLAIN = {
    pause: 'No new node starts; nodes in flight finish.',
    resume: 'Continue; failures so far are accepted and the thresholds count failures after it.',
    promote: 'Let the next wave start.',
    abort: 'Stop for good and free the nodes (nodes already sent their spec keep it).',
    rollback: "Restore every touched node's previous spec, newest wave first.",
  };

  const zeroCounts = () => Object.fromEntries(STATES.map((s) => [s, 0]));

  /** The rollout without per-node data (GET …/summary): a few KB whatever the rollout's size. */
  async function loadSummary() {
    state.summary = normalise(await Fw.api(base + '/summary'));
    return state.summary;
  }

  function normalise(s) {
    const waves = s.waves.map((w) => ({
      number: w.index, total: w.nodes, counts: { ...zeroCounts(), ...w.counts },
      startedAt: w.startedAt, finishedAt: w.finishedAt,
    }));
    return {
      id: s.id, name: s.name, state: s.state, createdAt: s.createdAt, createdBy: s.actor,
      currentWave: s.currentWave, awaitingPromotion: s.awaitingPromotion,
      statusReason: s.statusReason, pausedBy: s.pausedBy, lastSeq: s.lastSeq,
      counts: { ...zeroCounts(), ...s.counts }, change: s.change || {},
      plannedNodes: s.plannedNodes, failures: s.failures, waves,
    };
  }

  function renderSummary(s) {
    document.title = `Fleetwave · ${s.name}`;
    el('title').innerHTML = `${esc(s.name)} ${Fw.badge(s.state)}`
      + (s.awaitingPromotion ? ' <span class="badge paused" id="awaiting">awaiting promotion</span>' : '');
    const change = [s.change.migConfig && `MIG layout ${s.change.migConfig}`,
      s.change.driverVersion && `driver ${s.change.driverVersion}`].filter(Boolean).join(' and ');
    const c = s.counts;
    el('facts').innerHTML = `
      <div class="card"><h2>change</h2>${esc(change || '—')}</div>
      <div class="card"><h2>nodes</h2><div class="big">${esc(c.succeeded)}<span class="muted">/${esc(
        STATES.reduce((a, k) => a + (c[k] || 0), 0))}</span></div>
        ${esc(c['in-flight'])} in flight · <b class="${c.failed ? 'diff' : ''}">${esc(c.failed)} failed</b>
        · ${esc(c.pending)} pending</div>
      <div class="card"><h2>wave</h2><div class="big">${esc(s.currentWave)}<span class="muted">/${esc(s.waves.length)}</span></div></div>
      <div class="card"><h2>created</h2>${esc(Fw.time(s.createdAt))}${s.createdBy ? `<br>by ${esc(s.createdBy)}` : ''}</div>
      ${s.statusReason || s.pausedBy ? `<div class="card" id="status-reason"><h2>why</h2>${esc(s.statusReason || '')}
        ${s.pausedBy ? `<br><span class="muted">paused by ${esc(s.pausedBy)}</span>` : ''}</div>` : ''}`;
    el('waves').innerHTML = s.waves.map((w) => {
      const done = w.counts.succeeded + w.counts.failed;
      const label = `wave ${w.number}: ${done} of ${w.total} done`;
      return `<div class="wave${w.number === s.currentWave ? ' current' : ''}" data-wave="${esc(w.number)}">
        <span class="name">wave ${esc(w.number)}${w.number === 1 && s.waves.length > 1 ? ' <span class="muted">canary</span>' : ''}</span>
        <progress max="${esc(Math.max(w.total, 1))}" value="${esc(done)}" aria-label="${esc(label)}"
          data-done="${esc(done)}" data-total="${esc(w.total)}"></progress>
        <span>${esc(done)}/${esc(w.total)} done · ${esc(w.counts['in-flight'])} in flight${
          w.counts.failed ? ` · <b class="diff">${esc(w.counts.failed)} failed</b>` : ''}</span></div>`;
    }).join('') || '<p class="muted">no waves</p>';
    const waveSelect = document.querySelector('select[name=wave]');
    if (waveSelect.options.length !== s.waves.length + 1) {
      const chosen = waveSelect.value;
      waveSelect.innerHTML = '<option value="">any</option>'
        + s.waves.map((w) => `<option>${esc(w.number)}</option>`).join('');
      waveSelect.value = chosen;
    }
    renderActions(s);
  }

  function renderActions(s) {
    const box = el('actions');
    box.hidden = !Fw.mayOperate(state.who);
    box.querySelectorAll('button').forEach((b) => {
      const applies = APPLIES[b.dataset.action](s);
      b.disabled = !applies;
      b.title = applies ? EXPLAIN[b.dataset.action] : `does not apply to a ${s.state} rollout`;
    });
  }

  async function loadNodes() {
    const filter = Object.fromEntries(new FormData(el('node-filters')).entries());
    const params = new URLSearchParams({ page: state.page, size: PAGE_SIZE });
    if (filter.state) params.set('state', filter.state);
    if (filter.wave) params.set('wave', filter.wave);
    const page = await Fw.api(`${base}/nodes?${params}`);
    pager.show(page);
    el('nodes').innerHTML = page.items.map((n) => `<tr data-node="${esc(n.node)}" data-state="${esc(n.state)}">
      <td><a href="node.html?name=${encodeURIComponent(n.node)}">${esc(n.node)}</a></td>
      <td class="num">${esc(n.wave)}</td><td>${esc(n.phase)}</td><td>${Fw.badge(n.state)}</td>
      <td>${esc(n.reason)}</td><td>${esc(Fw.time(n.startedAt))}</td>
      <td class="num">${n.elapsedMillis != null ? esc((n.elapsedMillis / 1000).toFixed(1)) + ' s' : ''}</td></tr>`)
      .join('') || '<tr><td colspan="7" class="muted">no nodes</td></tr>';
  }

  /** One line of the timeline: what happened, to which wave and node, who asked and why. */
  function describe(data) {
    if (!data || typeof data !== 'object') return '';
    const parts = [];
    if (data.wave != null) parts.push(`wave ${data.wave}`);
    if (data.node) parts.push(`<a href="node.html?name=${encodeURIComponent(data.node)}">${esc(data.node)}</a>`);
    if (data.phase && data.phase !== 'forward') parts.push(esc(data.phase));
    if (data.plan && data.plan.plannedNodes != null) parts.push(`${esc(data.plan.plannedNodes)} nodes planned`);
    if (data.cause) parts.push(`<span class="diff">${esc(data.cause.message || data.cause.detail || data.cause.reason || JSON.stringify(data.cause))}</span>`);
    if (data.reason) parts.push(esc(data.reason));
    if (data.actor) parts.push(`by ${esc(data.actor)}`);
    return parts.join(' · ');
  }

  function addEvent(event, live) {
    if (state.seen.has(event.seq)) return;
    state.seen.add(event.seq);
    const type = Fw.shortType(event.type);
    const tone = /failed|aborted|paused|rollback|kept-out/.test(type) ? 'bad'
      : /succeeded|completed|resumed/.test(type) ? 'good' : '';
    const item = document.createElement('li');
    item.className = tone;
    item.dataset.type = type;
    item.dataset.seq = event.seq;
    item.innerHTML = `<b>${esc(type)}</b> ${describe(event.data)}
      <div class="when">#${esc(event.seq)} · ${esc(Fw.time(event.time))}</div>`;
    const list = el('timeline');
    list.prepend(item);
    while (list.children.length > TIMELINE_MAX) list.lastElementChild.remove();
    if (live) refreshSoon();
  }

  const refresh = async () => {
    try {
      renderSummary(await loadSummary());
      await loadNodes();
      Fw.showProblem('problem', null);
    } catch (e) {
      Fw.showProblem('problem', e);
    }
  };
  // Many events per second in a large rollout: re-read at most once a second.
  const refreshSoon = Fw.throttle(refresh, 1000);

  function confirmAction(action) {
    const dialog = el('confirm');
    el('confirm-title').textContent = `${action[0].toUpperCase()}${action.slice(1)} rollout ${state.summary.name}?`;
    el('confirm-text').textContent = EXPLAIN[action];
    el('confirm-reason').value = '';
    dialog.dataset.action = action;
    dialog.showModal();
    el('confirm-reason').focus();
  }

  async function act(action, reason) {
    const params = new URLSearchParams();
    if (reason) params.set('reason', reason);
    el('action-result').innerHTML = `<div class="notice">${esc(action)}: waiting for the engine…</div>`;
    try {
      const answer = await Fw.post(`${base}/${action}?${params}`);
      el('action-result').innerHTML = answer && answer.detail && !answer.id
        ? `<div class="notice" id="action-done">${esc(answer.detail)}</div>`
        : `<div class="notice" id="action-done">${esc(action)} done</div>`;
    } catch (e) {
      el('action-result').innerHTML = Fw.problemHtml(e);
    }
    refresh();
  }

  el('actions').addEventListener('click', (e) => {
    const button = e.target.closest('button[data-action]');
    if (button && !button.disabled) confirmAction(button.dataset.action);
  });
  el('confirm-cancel').addEventListener('click', () => el('confirm').close());
  el('confirm-form').addEventListener('submit', () => {
    // method=dialog closes the dialog; the action goes out with the reason typed.
    act(el('confirm').dataset.action, el('confirm-reason').value.trim());
  });
  el('node-filters').addEventListener('change', () => { state.page = 0; loadNodes().catch((e) => Fw.showProblem('problem', e)); });
  const pager = Fw.pager(state, loadNodes);

  (async () => {
    state.who = await Fw.header('rollout');
    if (!state.who) return;
    if (!id) {
      Fw.showProblem('problem', new Error('no rollout id: open a rollout from the fleet page'));
      return;
    }
    await refresh();
    if (!state.summary) return;
    // The newest events for the timeline, then the stream from there on.
    const after = Math.max(0, state.summary.lastSeq - TIMELINE_BACKLOG);
    let last = after;
    try {
      const backlog = await Fw.api(`${base}/events?after=${after}`);
      backlog.forEach((event) => { addEvent(event, false); last = Math.max(last, event.seq); });
    } catch (e) {
      Fw.showProblem('problem', e);
    }
    Fw.follow(`${base}/stream`, last, (sse) => addEvent(sse.data, true), (status) => {
      el('live').textContent = status === 'live' ? '· live' : status === 'ended' ? '· finished' : `· ${status}`;
      if (status === 'ended') refresh();
    });
  })();
})();
