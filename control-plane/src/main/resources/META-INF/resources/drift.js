'use strict';
// The drift page (drift.html?cause=…): GET /api/v1/drift, 50 nodes a page, each with its causes.
(() => {
  const { el, esc } = Fw;
  const state = { page: 0, cause: Fw.param('cause') || '' };
  const value = (v) => (v == null ? '<i>absent</i>' : v === '' ? '<i>none</i>' : `<code>${esc(v)}</code>`);

  function cause(c) {
    const aspects = (c.aspects || []).map((a) => `<div>${a.gpu != null ? `GPU ${esc(a.gpu)} ` : ''}${esc(a.aspect)}:
      ${value(a.expected)} &rarr; ${value(a.observed)} <span class="muted">since ${esc(Fw.time(a.since))}</span></div>`).join('');
    return `<div data-cause="${esc(c.cause)}">${Fw.badge(c.cause)} ${esc(c.reason ?? '')}${aspects}</div>`;
  }

  async function load() {
    const q = `page=${state.page}&size=50${state.cause ? `&cause=${encodeURIComponent(state.cause)}` : ''}`;
    try {
      const page = await Fw.api(`/api/v1/drift?${q}`);
      pager.show(page);
      el('drift').innerHTML = page.items.map((n) => `<tr data-node="${esc(n.node)}">
        <td><a href="node.html?name=${encodeURIComponent(n.node)}">${esc(n.node)}</a></td>
        <td>${esc(Fw.time(n.since))}</td><td>${n.causes.map(cause).join('')}</td>
        <td>${esc(Fw.time(n.lastSeen))}</td></tr>`).join('')
        || '<tr><td colspan="4" class="muted">no node drifts</td></tr>';
    } catch (e) {
      Fw.showProblem('problem', e);
    }
  }

  el('filters').cause.value = state.cause;
  el('filters').addEventListener('submit', (e) => {
    e.preventDefault();
    state.cause = el('filters').cause.value;
    state.page = 0;
    load();
  });
  const pager = Fw.pager(state, load);

  (async () => {
    if (!(await Fw.header('drift'))) return;
    await load();
  })();
})();
