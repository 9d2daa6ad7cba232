'use strict';
// The fleet page: counts, rollouts, the version distribution with drift, and the paged node table;
// drill-down fleet → zone → pool (?zone=…&pool=…) → node page → GPU.
(() => {
  const { el, esc } = Fw;
  const scope = { zone: Fw.param('zone') || '', pool: Fw.param('pool') || '' };
  const state = { page: 0 };

  const scopeUrl = (zone, pool) => {
    const params = new URLSearchParams();
    if (zone) params.set('zone', zone);
    if (pool) params.set('pool', pool);
    const query = params.toString();
    return 'index.html' + (query ? '?' + query : '');
  };

  function renderScope() {
    const parts = [`<a href="${scopeUrl()}">fleet</a>`];
    if (scope.zone) parts.push(`<a href="${scopeUrl(scope.zone)}">zone ${esc(scope.zone)}</a>`);
    if (scope.pool) parts.push(`<a href="${scopeUrl(scope.zone, scope.pool)}">pool ${esc(scope.pool)}</a>`);
    el('crumbs').innerHTML = parts.join(' › ');
    el('scope-title').textContent = [scope.zone && `zone ${scope.zone}`, scope.pool && `pool ${scope.pool}`]
      .filter(Boolean).join(' · ');
    el('versions-scope').textContent = el('scope-title').textContent;
    // The pool drill-down filters nodes by the "pool" label (the one the version view reads first).
    if (scope.pool && scope.pool !== '(none)') {
      document.querySelector('input[name=selector]').value = `pool=${scope.pool}`;
    }
  }

  function countList(title, counts) {
    const items = Object.entries(counts)
      .map(([k, v]) => `<li>${esc(k)}: <b>${esc(v)}</b></li>`).join('');
    return `<div class="card" data-card="${esc(title)}"><h2>${esc(title)}</h2>`
      + `<ul>${items || '<li class="muted">none</li>'}</ul></div>`;
  }

  async function loadSummary() {
    const s = await Fw.api(Fw.withAsOf('/api/v1/fleet/summary'));
    const models = Object.fromEntries(s.gpuModels.map((m) => [`${m.product} (${m.pciDeviceId})`, m.gpus]));
    el('summary').innerHTML =
      `<div class="card"><h2>nodes</h2><div class="big" id="total-nodes">${esc(s.totalNodes)}</div></div>`
      + `<div class="card"><h2>GPUs</h2><div class="big">${esc(s.totalGpus)}</div></div>`
      + countList('host kinds', s.hostKinds) + countList('GPU models', models)
      + countList('MIG modes', s.migModes) + countList('GPU health', s.health);
    const select = document.querySelector('select[name=gpuModel]');
    const chosen = select.value;
    select.innerHTML = '<option value="">any</option>' + s.gpuModels
      .map((m) => `<option value="${esc(m.pciDeviceId)}">${esc(m.product)} (${esc(m.pciDeviceId)})</option>`)
      .join('');
    select.value = chosen;
  }

  async function loadVersions() {
    const params = new URLSearchParams();
    if (scope.zone) params.set('zone', scope.zone);
    if (scope.pool) params.set('pool', scope.pool);
    const rows = await Fw.api(Fw.withAsOf('/api/v1/fleet/versions?' + params));
    // Per zone and pool: how many drivers and layouts it runs (more than one: mixed).
    const groups = {};
    rows.forEach((r) => {
      const key = r.zone + '\u0000' + r.pool;
      const g = groups[key] || (groups[key] = { drivers: new Set(), layouts: new Set(), count: 0 });
      g.drivers.add(r.driverVersion);
      g.layouts.add(r.migLayout);
      g.count += 1;
    });
    const shown = new Set();
    el('versions').querySelector('tbody').innerHTML = rows.map((r) => {
      const key = r.zone + '\u0000' + r.pool;
      const g = groups[key];
      const first = !shown.has(key);
      shown.add(key);
      const mixed = [g.drivers.size > 1 && 'drivers', g.layouts.size > 1 && 'layouts'].filter(Boolean);
      const where = first
        ? `<td><a href="${scopeUrl(r.zone)}">${esc(r.zone)}</a></td>`
          + `<td><a href="${scopeUrl(r.zone, r.pool)}">${esc(r.pool)}</a>`
          + (mixed.length ? ` <span class="badge paused">mixed ${esc(mixed.join(', '))}</span>` : '') + '</td>'
        : '<td></td><td></td>';
      return `<tr class="${r.drifted > 0 ? 'drift' : ''}" data-zone="${esc(r.zone)}" data-pool="${esc(r.pool)}">
        ${where}<td>${esc(r.driverVersion)}</td><td>${esc(r.os)}</td><td>${esc(r.migLayout)}</td>
        <td class="num">${esc(r.nodes)}</td>
        <td class="num drifted">${r.drifted > 0 ? esc(r.drifted) : ''}</td></tr>`;
    }).join('') || '<tr><td colspan="7" class="muted">no nodes</td></tr>';
  }

  // The brief listing's GPUs, counted by model: the page needs no GPU rows of its own.
  function gpuText(models) {
    const byProduct = {};
    models.forEach((m) => { byProduct[m.product] = (byProduct[m.product] || 0) + m.gpus; });
    const mig = models.reduce((sum, m) => sum + m.migEnabled, 0);
    return Object.entries(byProduct).map(([p, n]) => `${esc(n)}× ${esc(p)}`).join('<br>')
      + (mig ? `<br><span class="muted">MIG on ${esc(mig)}</span>` : '');
  }

  async function loadNodes() {
    const params = new URLSearchParams();
    for (const [k, v] of new FormData(el('filters')).entries()) if (v) params.set(k, v);
    if (scope.zone) params.set('zone', scope.zone);
    params.set('page', state.page);
    params.set('view', 'brief');
    Fw.showProblem('error', null);
    try {
      const page = await Fw.api(Fw.withAsOf('/api/v1/nodes?' + params));
      pager.show(page);
      el('nodes').innerHTML = page.items.map((n) => `<tr data-node="${esc(n.name)}">
        <td><a href="${Fw.withAsOf(`node.html?name=${encodeURIComponent(n.name)}`)}">${esc(n.name)}</a></td>
        <td>${esc(n.hostKind)}</td>
        <td>${esc(n.osId)} ${esc(n.osVersion)}<br><span class="muted">${esc(n.kernel)}</span></td>
        <td>${esc(n.driverVersion)}<br><span class="muted">${esc(n.driverProvider)}</span></td>
        <td><a href="${scopeUrl(n.zone)}">${esc(n.zone)}</a></td>
        <td>${Object.entries(n.labels).map(([k, v]) => `<code>${esc(k)}=${esc(v)}</code>`).join('<br>')}</td>
        <td>${gpuText(n.gpuModels)}</td>
        <td>${n.converged ? 'converged' : `<span class="diff">${esc(n.notConvergedReason || 'not converged')}</span>`}</td>
        <td>${esc(Fw.time(n.lastSeen))}</td></tr>`).join('');
    } catch (e) {
      Fw.showProblem('error', e);
      el('nodes').innerHTML = '';
    }
  }

  async function loadRollouts() {
    // The listing only (a few hundred bytes per rollout): the rollout page has the rest.
    const page = await Fw.api('/api/v1/rollouts?size=10');
    el('rollouts').innerHTML = page.items.map((r) => {
      const change = [r.migConfig && `MIG ${r.migConfig}`, r.driverVersion && `driver ${r.driverVersion}`]
        .filter(Boolean).join(', ');
      return `<tr data-rollout="${esc(r.id)}">
        <td><a href="rollout.html?id=${encodeURIComponent(r.id)}">${esc(r.name)}</a></td>
        <td>${Fw.badge(r.state)}</td><td>${esc(change)}</td>
        <td class="num">${esc(r.plannedNodes)}</td><td>${esc(Fw.time(r.createdAt))}</td></tr>`;
    }).join('') || '<tr><td colspan="5" class="muted">none yet: <a href="plan.html">plan one</a></td></tr>';
  }

  el('filters').addEventListener('submit', (e) => { e.preventDefault(); state.page = 0; loadNodes(); });
  const pager = Fw.pager(state, loadNodes);

  const report = (e) => { if (e.status !== 401) Fw.showProblem('error', e); };
  (async () => {
    renderScope();
    Fw.timeControl('as-of');
    const who = await Fw.header('fleet');
    if (!who) return;
    await Promise.all([
      loadSummary().catch(report), loadRollouts().catch(report), loadVersions().catch(report), loadNodes(),
    ]);
    // A past time's summary does not change: only the live one is polled.
    if (!Fw.asOf) setInterval(() => loadSummary().catch(report), 10000);
    setInterval(() => loadRollouts().catch(report), 5000);
  })();
})();
