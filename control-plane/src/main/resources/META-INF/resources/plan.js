'use strict';
// The plan preview: compose or paste a rollout request, see the planner's waves, per-node actions,
// exclusions and GPUs offline per wave (POST /api/v1/rollouts?dryRun=true), then create it.
(() => {
  const { el, esc } = Fw;
  const PAGE_SIZE = 100;
  const state = { plan: null, page: 0 };

  const list = (text) => String(text || '').split(',').map((s) => s.trim()).filter(Boolean);
  /** {@code team=16, pool=32} as {team: 16, pool: 32}; undefined when empty. */
  function perLabel(text) {
    const pairs = list(text).map((p) => p.split('=').map((s) => s.trim()));
    return pairs.length ? Object.fromEntries(pairs.map(([k, v]) => [k, Number(v)])) : undefined;
  }
  const number = (text) => (text === '' || text == null ? undefined : Number(text));

  /** The request the form describes (fields left empty are left out: the server's defaults apply). */
  function composed() {
    const f = Object.fromEntries(new FormData(el('compose')).entries());
    const target = {};
    if (f.selector) target.selector = f.selector.trim();
    if (list(f.gpuModels).length) target.gpuModels = list(f.gpuModels);
    if (list(f.hostKinds).length) target.hostKinds = list(f.hostKinds);
    if (list(f.nodes).length) target.nodes = list(f.nodes);
    if (f.allNodes) target.allNodes = true;
    const change = {};
    if (f.migConfig) change.migConfig = f.migConfig;
    if (f.driverVersion) change.driverVersion = f.driverVersion.trim();
    return {
      name: f.name || '',
      target,
      change,
      strategy: {
        waves: list(f.waves),
        maxUnavailable: f.maxUnavailable || undefined,
        maxZonesInFlight: number(f.maxZonesInFlight),
        maxGpusOffline: number(f.maxGpusOffline),
        maxGpusOfflinePer: perLabel(f.maxGpusOfflinePer),
        soakSeconds: number(f.soakSeconds),
        nodeTimeoutSeconds: number(f.nodeTimeoutSeconds),
        manualPromotion: !!f.manualPromotion,
        failureThreshold: { perWave: f.perWave || undefined, total: f.total || undefined, action: f.action },
      },
    };
  }

  const writeRequest = () => { el('request').value = JSON.stringify(composed(), null, 2); };

  /** The request as typed into the JSON field, or a problem naming what is wrong with it. */
  function request() {
    try {
      return JSON.parse(el('request').value);
    } catch (e) {
      throw new Fw.ApiError(0, { title: 'The request is not JSON', detail: e.message });
    }
  }

  function instances(list) {
    return list.length
      ? list.map((i) => `${esc(i.profile)}<span class="muted">@${esc(i.placementStart)}</span>`).join(' + ')
      : 'no instances';
  }

  function migText(node) {
    return node.gpuChanges.map((g) => {
      const from = g.fromMode === 'enabled' ? instances(g.from) : `MIG ${esc(g.fromMode)}`;
      const to = g.toMigEnabled ? instances(g.to) : 'MIG off';
      return `GPU ${esc(g.gpuIndex)} <span class="muted">${esc(g.model)}</span>: ${from} → <b>${to}</b>`
        + (g.resetNeeded ? ' <span class="badge paused">reset</span>' : '');
    }).join('<br>') || '<span class="muted">—</span>';
  }

  function driverText(node) {
    const d = node.driver;
    if (!d) return '<span class="muted">—</span>';
    const artifact = d.artifact
      ? Object.entries(d.artifact).filter(([, v]) => v != null && typeof v !== 'object')
        .map(([k, v]) => `${esc(k)} <code>${esc(v)}</code>`).join(', ')
      : '';
    return `${esc(d.fromVersion || '?')} → <b>${esc(d.toVersion)}</b>`
      + (d.osUpgradeNeeded ? ' <span class="badge paused">OS image upgrade</span>' : '')
      + (artifact ? `<br><span class="muted">${artifact}</span>` : '');
  }

  /** GPUs a node's change takes out of service: all of them for a driver change, else those changed. */
  const gpusOffline = (node) => node.gpuChanges.length + (node.driver ? node.untouchedGpus.length : 0);

  const counts = (m) => Object.entries(m || {}).map(([k, v]) => `${esc(k)} ${esc(v)}`).join(', ');

  /** 1h05m, 20m, 45s. */
  function duration(seconds) {
    if (seconds < 60) return `${seconds}s`;
    const minutes = Math.ceil(seconds / 60);
    return minutes < 60 ? `${minutes}m` : `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
  }

  /** A wave's forecast: GPUs offline at once per label value, zone and model; its expected duration. */
  function forecastCells(f) {
    if (!f) return '<td class="muted">—</td><td class="muted">—</td>';
    const labels = Object.entries(f.peakGpusOfflineByLabel || {})
      .map(([label, values]) => `${esc(label)}: ${counts(values)}`);
    // Whole nodes: a node out of service takes all its GPUs, whatever its change touches.
    const by = [`all: ${esc(f.peakGpusOffline)}`, ...labels,
      `zone: ${counts(f.peakGpusOfflineByZone)}`, `model: ${counts(f.peakGpusOfflineByModel)}`];
    const unmeasured = f.unmeasuredKinds.length
      ? `<br><span class="muted">${esc(f.unmeasuredKinds.join(', '))} at the default ${esc(duration(f.defaultApplySeconds))}</span>`
      : '';
    return `<td class="gpus-offline-by">${by.join('<br>')}</td>
      <td class="expected">${esc(duration(f.expectedSeconds))}${unmeasured}</td>`;
  }

  /** Where a node is going while it has not got there: its desired spec not applied yet. */
  function pendingText(node) {
    const p = node.pendingSpec;
    if (!p) return '';
    const wants = p.gpus.map((g) => `GPU ${esc(g.index)} ${g.migEnabled ? counts(g.instances) : 'MIG off'}`);
    if (p.driverVersion) wants.push(`driver ${esc(p.driverVersion)}`);
    return `<br><span class="badge paused">change pending</span> <span class="muted">generation ${esc(p.generation)}`
      + `${wants.length ? ` wants ${wants.join(', ')}` : ''}</span>`;
  }

  function renderPlan(plan) {
    state.plan = plan;
    state.page = 0;
    el('plan').hidden = false;
    el('plan-title').textContent = plan.name;
    const gpus = plan.capacity.reduce((sum, c) => sum + c.gpus, 0);
    el('plan-facts').innerHTML = `
      <div class="card"><h2>nodes planned</h2><div class="big" id="planned-nodes">${esc(plan.plannedNodes)}</div></div>
      <div class="card"><h2>waves</h2><div class="big">${esc(plan.waves.length)}</div></div>
      <div class="card"><h2>excluded</h2><div class="big">${esc(plan.excluded.length)}</div></div>
      <div class="card"><h2>out of service at once</h2>${esc(plan.maxUnavailableNodes)} nodes
        ${plan.maxZonesInFlight != null ? `<br>${esc(plan.maxZonesInFlight)} zone(s)` : ''}
        ${plan.strategy.maxGpusOffline != null ? `<br>${esc(plan.strategy.maxGpusOffline)} GPUs` : ''}
        ${Object.entries(plan.strategy.maxGpusOfflinePer || {})
    .map(([k, v]) => `<br>${esc(v)} GPUs per ${esc(k)}`).join('')}</div>
      <div class="card"><h2>GPUs in the fleet</h2><div class="big">${esc(gpus)}</div></div>`;
    const forecasts = Object.fromEntries((plan.forecasts || []).map((f) => [f.wave, f]));
    el('plan-waves').querySelector('tbody').innerHTML = plan.waves.map((w) => {
      const nodes = w.batches.flatMap((b) => b.nodes);
      const forecast = forecasts[w.number];
      const peak = Math.max(0, ...w.batches.map((b) => b.nodes.reduce((s, n) => s + gpusOffline(n), 0)));
      const changed = nodes.reduce((s, n) => s + gpusOffline(n), 0);
      const zones = [...new Set(w.batches.flatMap((b) => b.zones))];
      return `<tr data-wave="${esc(w.number)}"><td class="num">${esc(w.number)}</td>
        <td>${esc(w.waveSpec)}${w.canary ? ' <span class="muted">canary</span>' : ''}</td>
        <td class="num">${esc(nodes.length)}</td><td class="num">${esc(w.batches.length)}</td>
        <td class="num gpus-offline">${esc(peak)}</td><td class="num">${esc(changed)}</td>
        <td>${esc(zones.join(', '))}</td>${forecastCells(forecast)}</tr>`;
    }).join('') || '<tr><td colspan="9" class="muted">no node to change</td></tr>';
    el('plan-capacity').querySelector('tbody').innerHTML = plan.capacity.map((c) => {
      const profiles = (m) => Object.entries(m).map(([k, v]) => `${esc(v)}× ${esc(k)}`).join(', ') || '—';
      return `<tr><td>${esc(c.gpuModel)}</td><td class="num">${esc(c.gpus)}</td>
        <td class="num">${esc(c.peakGpusUnavailable)}</td><td>${profiles(c.instancesBefore)}</td>
        <td>${profiles(c.instancesAfter)}</td></tr>`;
    }).join('');
    el('plan-excluded').querySelector('tbody').innerHTML = plan.excluded.map((x) => `<tr data-node="${esc(x.node)}">
      <td><a href="node.html?name=${encodeURIComponent(x.node)}">${esc(x.node)}</a></td>
      <td><code>${esc(x.reason)}</code></td><td>${esc(x.detail)}</td></tr>`).join('')
      || '<tr><td colspan="3" class="muted">none</td></tr>';
    renderNodes();
  }

  /** The plan's nodes, a page at a time (a 10,000-node plan is not put into the page at once). */
  function renderNodes() {
    const rows = state.plan.waves.flatMap((w) => w.batches.flatMap((b) => b.nodes.map((n) => ({ w, b, n }))));
    pager.show({ page: state.page, size: PAGE_SIZE, total: rows.length });
    el('plan-nodes').querySelector('tbody').innerHTML = rows
      .slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE)
      .map(({ w, b, n }) => `<tr data-node="${esc(n.node)}"><td class="num">${esc(w.number)}</td>
        <td class="num">${esc(b.number)}</td>
        <td><a href="node.html?name=${encodeURIComponent(n.node)}">${esc(n.node)}</a></td>
        <td>${esc(n.hostKind)}</td><td>${esc(n.zone)}</td><td>${migText(n)}${pendingText(n)}</td><td>${driverText(n)}</td>
        <td class="num">${esc(n.vfsTouched)}</td></tr>`).join('');
  }

  async function preview() {
    Fw.showProblem('problem', null);
    try {
      renderPlan(await Fw.post('/api/v1/rollouts?dryRun=true', request()));
    } catch (e) {
      el('plan').hidden = true;
      Fw.showProblem('problem', e);
    }
  }

  async function create() {
    Fw.showProblem('problem', null);
    try {
      const stored = await Fw.post('/api/v1/rollouts', request());
      location.href = `rollout.html?id=${encodeURIComponent(stored.id)}`;
    } catch (e) {
      Fw.showProblem('problem', e);
    }
  }

  el('compose').addEventListener('input', writeRequest);
  el('compose').addEventListener('change', writeRequest);
  el('compose').addEventListener('submit', (e) => e.preventDefault());
  el('preview').addEventListener('click', preview);
  el('create').addEventListener('click', create);
  const pager = Fw.pager(state, renderNodes);

  (async () => {
    writeRequest();
    const who = await Fw.header('plan');
    if (!who) return;
    if (!Fw.mayOperate(who)) {
      el('preview').disabled = true;
      el('create').disabled = true;
      el('role-note').innerHTML = `<div class="notice">Your role (${esc(who.roles.join(', ') || 'none')})
        may look but not plan or create rollouts: that takes operator or admin.</div>`;
    }
    try {
      const configs = await Fw.api('/api/v1/mig-configs');
      const select = document.querySelector('select[name=migConfig]');
      select.innerHTML = '<option value="">(none)</option>'
        + configs.map((c) => `<option value="${esc(c.name)}">${esc(c.name)}</option>`).join('');
    } catch (e) {
      Fw.showProblem('problem', e);
    }
  })();
})();
