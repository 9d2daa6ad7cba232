'use strict';
// The node page's change timeline: GET /api/v1/nodes/{name}/changes for the last 7 days, newest
// first, each change with what it was, what it is and why (a spec and who asked for it, a reboot,
// or nothing Fleetwave asked for: drift).
(() => {
  const { el, esc } = Fw;
  const name = Fw.param('name');
  const WEEK_MS = 7 * 24 * 3600 * 1000;

  function why(c) {
    if (c.cause === 'spec') {
      const by = c.askedBy;
      const who = !by ? '' : by.rollout
        ? ` · rollout <a href="rollout.html?id=${encodeURIComponent(by.rollout.id)}">${esc(by.rollout.name)}</a>`
          + ` wave ${esc(by.rollout.wave)} (${esc(by.rollout.phase)}), by ${esc(by.actor)}`
        : ` · set by ${esc(by.actor ?? 'unknown')}`;
      return `spec generation ${esc(c.generation)}${who}`;
    }
    if (c.cause === 'reboot') return `reboot${c.bootId ? ` <span class="muted">(boot ${esc(c.bootId)})</span>` : ''}`;
    return '<span class="diff">outside Fleetwave (drift)</span>';
  }

  const value = (v) => (v == null ? '<i>absent</i>' : v === '' ? '<i>none</i>' : `<code>${esc(v)}</code>`);

  (async () => {
    if (!name) return;
    try {
      const since = new Date(Date.now() - WEEK_MS).toISOString();
      const page = await Fw.api(`/api/v1/nodes/${encodeURIComponent(name)}/changes?since=${encodeURIComponent(since)}&size=50`);
      el('changes').innerHTML = page.items.map((c) => `<li data-cause="${esc(c.cause)}">
        <b>${c.gpu != null ? `GPU ${esc(c.gpu)} ` : ''}${esc(c.aspect)}</b> ${value(c.before)} &rarr; ${value(c.after)}
        <div class="when">${esc(Fw.time(c.time))} · ${why(c)}</div></li>`).join('')
        + (page.total > page.items.length ? `<li class="muted">${esc(page.total - page.items.length)} older not shown</li>` : '')
        || '<li class="muted">none in the last 7 days</li>';
    } catch (e) {
      el('changes').innerHTML = `<li class="problem">${esc(e.message)}</li>`;
    }
  })();
})();
