'use strict';
// The node page (node.html?name=…): facts with reasons, each GPU with its MIG slices drawn on the
// model's memory-slice geometry, VFs and vGPU types, desired vs observed, the last reconcile and
// the event history.
(() => {
  const { el, esc } = Fw;
  const name = Fw.param('name');
  const base = `/api/v1/nodes/${encodeURIComponent(name || '')}`;
  const EVENTS_PAGE = 20;
  const state = { page: 0 };

  const FACTS = [
    ['host kind', 'hostKind'], ['OS', 'osId', (n) => `${n.osId ?? ''} ${n.osVersion ?? ''}`, ['osId', 'osVersion']],
    ['kernel', 'kernel'], ['read-only root', 'readOnlyRoot'], ['systemd', 'systemd'],
    ['driver', 'driverVersion', (n) => `${n.driverVersion ?? '—'} (${n.driverProvider ?? '?'})`, ['driverVersion', 'driverProvider']],
    ['driver root', 'driverRoot'], ['device root', 'deviceRoot'], ['zone', 'zone'],
  ];

  function renderFacts(node) {
    const reasons = { ...(node.reasons || {}) };
    const take = (keys) => keys.map((k) => { const r = reasons[k]; delete reasons[k]; return r; }).filter(Boolean);
    const rows = FACTS.map(([label, key, show, keys]) => {
      const value = show ? show(node) : node[key];
      const why = take(keys || [key]);
      return `<dt>${esc(label)}</dt><dd data-fact="${esc(key)}">${esc(value ?? '—')}${
        why.map((r) => `<div class="reason">${esc(r)}</div>`).join('')}</dd>`;
    });
    Object.entries(reasons).forEach(([k, r]) => rows.push(`<dt>${esc(k)}</dt><dd><div class="reason">${esc(r)}</div></dd>`));
    rows.push(`<dt>labels</dt><dd>${Object.entries(node.labels || {})
      .map(([k, v]) => `<code>${esc(k)}=${esc(v)}</code>`).join('<br>') || '—'}</dd>`);
    rows.push(`<dt>state</dt><dd>${node.converged ? 'converged'
      : `<span class="diff">${esc(node.notConvergedReason || 'not converged')}</span>`}
      <span class="muted">(desired generation ${esc(node.desiredGeneration ?? '—')}, applied ${esc(node.appliedGeneration)})</span></dd>`);
    rows.push(`<dt>last seen</dt><dd>${esc(Fw.time(node.lastSeen))}</dd>`);
    el('facts').innerHTML = rows.join('');
  }

  const modelOf = (catalogue, pciDeviceId) => catalogue.find((m) =>
    m.pciDeviceIds.some((id) => id.toUpperCase() === String(pciDeviceId).toUpperCase()));

  /** The GPU's instances on its model's memory slices: one column per slice, a box per placement. */
  function migPicture(gpu, model) {
    const geometry = model && model.mig;
    const placed = gpu.instances.map((i) => i.placement.start + i.placement.size);
    const slices = Math.max(geometry ? geometry.memorySlices : 0, ...placed, 0);
    if (!slices) return '';
    const profile = (p) => geometry && geometry.profiles.find((x) => x.name === p);
    const numbers = Array.from({ length: slices }, (_, i) =>
      `<span class="slice-number" style="grid-column:${i + 1}">${i}</span>`).join('');
    const slots = Array.from({ length: slices }, (_, i) =>
      `<span class="slot" style="grid-column:${i + 1}"></span>`).join('');
    const boxes = gpu.instances.map((i) => {
      const p = profile(i.profile);
      const compute = p && geometry ? `${p.computeSlices}/${geometry.computeSlices} compute` : '';
      const where = `memory slices ${i.placement.start}..${i.placement.start + i.placement.size - 1}`;
      return `<div class="mig-slice" data-profile="${esc(i.profile)}" data-start="${esc(i.placement.start)}"
        data-size="${esc(i.placement.size)}" title="${esc(`${i.profile}: ${where}`)}"
        style="grid-column:${Number(i.placement.start) + 1} / span ${Number(i.placement.size)}">
        ${esc(i.profile)}<small>${esc(compute)}</small></div>`;
    }).join('');
    return `<div class="mig" role="img" aria-label="${esc(`MIG layout on ${slices} memory slices`)}"
      data-memory-slices="${esc(slices)}" style="grid-template-columns:repeat(${slices}, minmax(0, 1fr))">
      ${numbers}${slots}${boxes}</div>`;
  }

  function renderGpus(node, catalogue, desired) {
    el('gpus').innerHTML = node.gpus.map((g) => {
      const model = modelOf(catalogue, g.pciDeviceId);
      const want = desired && desired.spec.gpus.find((d) => d.index === g.index);
      const mig = !g.migCapable ? 'no MIG'
        : `MIG ${esc(g.migMode)}${g.migModePending && g.migModePending !== g.migMode ? ` <span class="diff">(pending ${esc(g.migModePending)}: needs a GPU reset)</span>` : ''}`;
      const vgpu = want && Object.keys(want.vgpuTypes || {}).length
        ? Object.entries(want.vgpuTypes).map(([vf, t]) => `VF ${esc(vf)}: <code>${esc(t)}</code>`).join(', ')
        : '<span class="muted">none set</span>';
      const offered = model && model.vgpuTypes.length
        ? `<details><summary class="muted">${esc(model.vgpuTypes.length)} vGPU types this model offers</summary>
          ${model.vgpuTypes.map((t) => `<code>${esc(t.name)}</code>`).join(' ')}</details>` : '';
      return `<div class="gpu" id="gpu-${esc(g.index)}" data-gpu="${esc(g.index)}">
        <h3>GPU ${esc(g.index)} · ${esc(g.product)} <span class="badge ${g.health === 'healthy' ? 'succeeded' : 'failed'}">${esc(g.health)}</span></h3>
        <div class="muted">${esc(g.uuid)} · PCI ${esc(g.pciBusId)} · ${esc(g.pciDeviceId)} ·
          ${esc(Math.round(g.memoryMiB / 1024))} GiB${model && model.mig
            ? ` · ${esc(model.mig.memorySlices)} memory / ${esc(model.mig.computeSlices)} compute slices` : ''}</div>
        <div>${mig}${g.migMode === 'enabled' && !g.instances.length ? ' · no instances' : ''}</div>
        ${g.migCapable ? migPicture(g, model) : ''}
        <div>VFs ${esc(g.vfsEnabled)} of ${esc(g.vfsTotal)} enabled${g.vfsTotal ? ` · vGPU types: ${vgpu}` : ''}</div>
        ${g.vfsTotal ? offered : ''}</div>`;
    }).join('') || '<p class="muted">no GPUs</p>';
  }

  function countProfiles(instances) {
    const counts = {};
    instances.forEach((i) => { counts[i.profile] = (counts[i.profile] || 0) + 1; });
    return counts;
  }

  const profilesText = (counts) => Object.entries(counts || {}).sort()
    .map(([p, n]) => `${n}× ${p}`).join(', ') || 'none';

  function renderSpec(node, spec) {
    if (!spec.desired) {
      el('spec').innerHTML = '<p class="muted">No desired spec yet: the node keeps what it runs.</p>';
      return;
    }
    const rows = [];
    const row = (what, desired, observed) => {
      const differs = desired !== observed;
      rows.push(`<tr${differs ? ' class="drift"' : ''}><td>${esc(what)}</td><td>${esc(desired)}</td>
        <td${differs ? ' class="diff"' : ''}>${esc(observed)}</td></tr>`);
    };
    const d = spec.desired.spec;
    if (d.driverVersion) row('driver', d.driverVersion, node.driverVersion ?? '—');
    d.gpus.forEach((want) => {
      const seen = spec.observed.find((g) => g.index === want.index);
      if (!seen) {
        row(`GPU ${want.index}`, 'present', 'not reported');
        return;
      }
      row(`GPU ${want.index} MIG`, want.migEnabled ? 'enabled' : 'disabled', seen.migMode);
      row(`GPU ${want.index} instances`, profilesText(want.instances), profilesText(countProfiles(seen.instances)));
      row(`GPU ${want.index} VFs`, String(want.vfs), String(seen.vfsEnabled));
    });
    el('spec').innerHTML = `<p>generation ${esc(spec.desired.generation)} ·
      ${spec.converged ? 'converged' : `<span class="diff">${esc(spec.notConvergedReason)}</span>`}</p>
      <table><thead><tr><th></th><th>desired</th><th>observed</th></tr></thead><tbody>${rows.join('')}</tbody></table>
      <details><summary class="muted">desired spec as JSON</summary><pre class="json">${esc(JSON.stringify(d, null, 2))}</pre></details>`;
  }

  function renderReconcile(r) {
    if (!r) {
      el('reconcile').innerHTML = '<p class="muted">none yet</p>';
      return;
    }
    const failure = r.lastFailure
      ? `<div class="problem">generation ${esc(r.lastFailure.generation)}: ${esc(r.lastFailure.step)}${
        r.lastFailure.gpu != null ? ` on GPU ${esc(r.lastFailure.gpu)}` : ''} failed: ${esc(r.lastFailure.reason)}${
        r.lastFailure.holder ? ` (held by ${esc(r.lastFailure.holder)})` : ''}</div>` : '';
    const rejection = r.lastRejection
      ? `<div class="problem">generation ${esc(r.lastRejection.generation)} refused (${esc(r.lastRejection.code)}): ${esc(r.lastRejection.reason)}</div>` : '';
    el('reconcile').innerHTML = `<p>accepted generation ${esc(r.acceptedGeneration)}, applied ${esc(r.appliedGeneration)} ·
      device-plugin gate ${esc(r.gate ?? '—')}${r.gateReason ? ` <span class="muted">(${esc(r.gateReason)})</span>` : ''}
      ${r.bootPending ? ' · <span class="diff">waiting to re-apply after a boot</span>' : ''}</p>${failure}${rejection}
      <table id="steps"><thead><tr><th class="num">#</th><th>step</th><th class="num">GPU</th><th>detail</th>
        <th>state</th><th>reason</th><th class="num">took</th></tr></thead><tbody>${r.steps.map((s) => `<tr>
        <td class="num">${esc(s.ordinal)}</td><td>${esc(s.kind)}</td><td class="num">${esc(s.gpu ?? '')}</td>
        <td>${esc(s.detail)}</td><td>${Fw.badge(s.state)}</td>
        <td>${esc(s.reason ?? '')}${s.holder ? ` <span class="muted">held by ${esc(s.holder)}</span>` : ''}</td>
        <td class="num">${s.elapsedMillis != null ? esc(s.elapsedMillis) + ' ms' : ''}</td></tr>`).join('')
        || '<tr><td colspan="7" class="muted">no steps</td></tr>'}</tbody></table>`;
  }

  async function loadEvents() {
    const page = await Fw.api(`${base}/events?page=${state.page}&size=${EVENTS_PAGE}`);
    pager.show(page);
    el('events').innerHTML = page.items.map((e) => `<li data-type="${esc(e.type)}">
      <b>${esc(String(e.type).replace(/^io\.fleetwave\.node\./, '').replace(/\.v\d+$/, ''))}</b>
      <div class="when">${esc(Fw.time(e.time))} · run ${esc(e.epoch)} #${esc(e.seq)}</div>
      <details><summary class="muted">payload</summary><pre class="json">${esc(JSON.stringify(e.payload, null, 2))}</pre></details>
      </li>`).join('') || '<li class="muted">none</li>';
  }

  const pager = Fw.pager(state, loadEvents, 'events', ['newer', 'older']);

  (async () => {
    const who = await Fw.header('node');
    if (!who) return;
    Fw.timeControl('as-of');
    if (!name) {
      Fw.showProblem('problem', new Error('no node name: open a node from the fleet page'));
      return;
    }
    try {
      const [node, spec, catalogue] = await Promise.all([
        Fw.api(Fw.withAsOf(base)), Fw.api(base + '/spec'), Fw.api('/api/v1/gpu-models')]);
      document.title = `Fleetwave · ${node.name}`;
      el('title').textContent = node.name;
      const zone = node.zone ? `<a href="index.html?zone=${encodeURIComponent(node.zone)}">zone ${esc(node.zone)}</a> › ` : '';
      const pool = node.labels && node.labels.pool && node.zone
        ? `<a href="index.html?zone=${encodeURIComponent(node.zone)}&pool=${encodeURIComponent(node.labels.pool)}">pool ${esc(node.labels.pool)}</a> › ` : '';
      el('crumbs').innerHTML = `<a href="index.html">fleet</a> › ${zone}${pool}${esc(node.name)}`;
      renderFacts(node);
      renderGpus(node, catalogue, spec.desired);
      renderSpec(node, spec);
      renderReconcile(spec.reconcile);
      if (location.hash) el(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
      await loadEvents();
    } catch (e) {
      Fw.showProblem('problem', e);
    }
  })();
})();
