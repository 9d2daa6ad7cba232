'use strict';
// What every dashboard page shares: API calls (same origin, the sign-in cookie rides along),
// problem+json rendering, the signed-in caller and the roles' actions, the page header, the pager
// of a paged table, and a server-sent-events reader that can resume after a given event.
const Fw = (() => {
  const NOT_SIGNED_IN =
    'Not signed in: open the sign-in link the demo printed (http://…/?token=…), or sign in'
    + ' through your identity provider.';

  const el = (id) => document.getElementById(id);

  /** Everything put into HTML goes through this. */
  const esc = (value) => String(value ?? '').replace(/[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

  const param = (name) => new URLSearchParams(location.search).get(name);

  /** An API answer that is not 2xx, with its problem+json body. */
  class ApiError extends Error {
    constructor(status, problem) {
      super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
      this.status = status;
      this.problem = problem || {};
    }
  }

  async function api(url, options = {}) {
    const response = await fetch(url, {
      credentials: 'same-origin',
      ...options,
      headers: { Accept: 'application/json', ...(options.headers || {}) },
    });
    if (response.status === 401) {
      throw new ApiError(401, { status: 401, title: 'Not signed in', detail: NOT_SIGNED_IN });
    }
    const text = await response.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = { detail: text };
    }
    if (!response.ok) {
      throw new ApiError(response.status, { status: response.status, ...(body || {}) });
    }
    return body;
  }

  /** A JSON POST (the API refuses form and text content types for every change). */
  const post = (url, body) => api(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)),
  });

  /** A problem (an ApiError or any error) as HTML: title, status, detail, field errors, nodes. */
  function problemHtml(error) {
    const p = error instanceof ApiError ? error.problem : { title: 'Error', detail: error.message };
    const fieldErrors = (p.errors || [])
      .map((e) => `<li><code>${esc(e.field)}</code>: ${esc(e.message)}</li>`).join('');
    const nodes = (p.nodes || []).map((n) => `<code>${esc(n)}</code>`).join(', ');
    const rollout = p.rollout
      ? `<p>Held by rollout <a href="rollout.html?id=${encodeURIComponent(p.rollout.id)}">`
        + `${esc(p.rollout.name)}</a>.</p>` : '';
    return `<div class="problem" role="alert" data-status="${esc(p.status)}">
      <h3>${esc(p.title || 'Error')}${p.status ? ` <span class="muted">(${esc(p.status)})</span>` : ''}</h3>
      <div class="detail">${esc(p.detail)}</div>
      ${fieldErrors ? `<ul class="field-errors">${fieldErrors}</ul>` : ''}
      ${nodes ? `<p>Nodes${p.nodeCount ? ` (${esc(p.nodeCount)} in all)` : ''}: ${nodes}</p>` : ''}
      ${rollout}</div>`;
  }

  function showProblem(id, error) {
    el(id).innerHTML = error ? problemHtml(error) : '';
  }

  let callerPromise = null;
  /** The signed-in caller {subject, roles}; null when not signed in. */
  function caller() {
    if (!callerPromise) {
      callerPromise = api('/api/v1/security/whoami').catch((e) => {
        if (e.status === 401) return null;
        throw e;
      });
    }
    return callerPromise;
  }

  /** Whether the caller's roles allow rollouts and their actions, node specs. */
  const mayOperate = (who) => !!who && who.roles.some((r) => r === 'operator' || r === 'admin');

  /** The page header: navigation and who is signed in. */
  async function header(active) {
    const top = document.createElement('header');
    top.className = 'top';
    const link = (href, name, key) =>
      `<a href="${href}"${key === active ? ' class="active" aria-current="page"' : ''}>${name}</a>`;
    top.innerHTML = `<a class="brand" href="index.html">Fleetwave</a>
      <nav>${link('index.html', 'Fleet', 'fleet')}${link('drift.html', 'Drift', 'drift')}${link('plan.html', 'Plan a rollout', 'plan')}
      <a href="/q/swagger-ui/">API</a></nav><span class="who" id="who">…</span>`;
    document.body.prepend(top);
    try {
      const who = await caller();
      el('who').innerHTML = who
        ? `signed in as <b>${esc(who.subject)}</b> (${esc(who.roles.join(', ') || 'no role')})`
        : '<span class="error" id="not-signed-in">not signed in</span>';
      if (!who) {
        const main = document.querySelector('main');
        main.insertAdjacentHTML('afterbegin', `<div class="problem" role="alert">
          <h3>Not signed in</h3>${esc(NOT_SIGNED_IN)}</div>`);
      }
      return who;
    } catch (e) {
      el('who').textContent = e.message;
      return null;
    }
  }

  /** "io.fleetwave.rollout.node-started.v1" → "node-started". */
  const shortType = (type) => String(type || '')
    .replace(/^io\.fleetwave\.rollout\./, '').replace(/\.v\d+$/, '');

  const time = (iso) => (iso ? new Date(iso).toLocaleString() : '');

  const badge = (state) => `<span class="badge ${esc(state)}">${esc(state)}</span>`;

  /**
   * Follows a server-sent-events stream from after event {@code lastId}, calling onEvent({id, type,
   * data}) per event. fetch rather than EventSource: EventSource cannot send Last-Event-ID on its
   * first request, and a page must not replay a 10,000-node rollout's whole history. Reconnects
   * (after a pause that grows to 30 s) until the server ends the stream or close() is called.
   */
  function follow(url, lastId, onEvent, onStatus = () => {}) {
    const abort = new AbortController();
    let last = lastId;
    let pause = 1000;
    async function connect() {
      onStatus('live');
      const response = await fetch(url, {
        credentials: 'same-origin',
        signal: abort.signal,
        headers: { Accept: 'text/event-stream', 'Last-Event-ID': String(last) },
      });
      if (!response.ok) throw new ApiError(response.status, { status: response.status });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value.replace(/\r\n?/g, '\n');
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = { id: null, type: 'message', data: '' };
          const data = [];
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon === 0) continue;
            const field = colon < 0 ? line : line.slice(0, colon);
            const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') event.id = text;
            else if (field === 'event') event.type = text;
            else if (field === 'data') data.push(text);
          }
          if (!data.length) continue;
          event.data = JSON.parse(data.join('\n'));
          if (event.id !== null) last = Number(event.id);
          pause = 1000;
          onEvent(event);
        }
      }
    }
    (async () => {
      while (!abort.signal.aborted) {
        try {
          await connect();
          onStatus('ended');
          return;
        } catch (e) {
          if (abort.signal.aborted) return;
          if (e.status === 401 || e.status === 404) {
            onStatus('stopped: ' + e.message);
            return;
          }
          onStatus(`reconnecting in ${pause / 1000} s`);
          await new Promise((resolve) => setTimeout(resolve, pause));
          pause = Math.min(pause * 2, 30000);
        }
      }
    })();
    return { close: () => abort.abort() };
  }

  /**
   * The time the page shows the fleet as of (?asOf=, an RFC 3339 time), or null for now; the fleet
   * and node pages read their node, summary and version answers as of it.
   */
  const asOf = param('asOf');

  /** The URL with the page's asOf added, when it has one. */
  const withAsOf = (url) => (asOf
    ? url + (url.includes('?') ? '&' : '?') + 'asOf=' + encodeURIComponent(asOf) : url);

  /** The page's own URL with asOf set to {@code iso} (null: removed), its other parameters kept. */
  function pageAsOf(iso) {
    const params = new URLSearchParams(location.search);
    if (iso) params.set('asOf', iso); else params.delete('asOf');
    const query = params.toString();
    return location.pathname + (query ? '?' + query : '') + location.hash;
  }

  /**
   * The time control in the element {@code id}: a local date and time and "show" reload the page as
   * of that time; "now" reloads it live. While a time is set a banner says so.
   */
  function timeControl(id) {
    const local = (iso) => {
      const d = new Date(iso);
      return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
    };
    el(id).innerHTML = `<form class="bar" id="as-of-form">
      <label>as of <input type="datetime-local" step="1" name="asOf" id="as-of-input"
        value="${esc(asOf ? local(asOf) : '')}"></label>
      <button type="submit">show</button>
      <button type="button" id="as-of-now"${asOf ? '' : ' disabled'}>now</button></form>
      ${asOf ? `<p class="as-of-banner" id="as-of-banner" role="status">Showing the fleet as it was
        at <time datetime="${esc(asOf)}">${esc(time(asOf))}</time>, from the node history
        (<code>${esc(asOf)}</code>); rollouts, specs and events are shown as they are now.</p>` : ''}`;
    el('as-of-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const value = el('as-of-input').value;
      if (value) location.assign(pageAsOf(new Date(value).toISOString()));
    });
    el('as-of-now').addEventListener('click', () => location.assign(pageAsOf(null)));
  }

  /**
   * The page's pager, drawn into its element pager: the buttons prev and next (labelled back and
   * forward) around the text pageinfo. A click moves state.page one page (never before the first)
   * and calls load; show(listing) then says which page of how many the listing ({page, size,
   * total}: an API page, or one the page cut itself) is and disables the button at either end.
   */
  function pager(state, load, noun = 'nodes', [back, forward] = ['previous', 'next']) {
    el('pager').innerHTML = `<button id="prev" type="button">&larr; ${back}</button>
      <span id="pageinfo" class="muted"></span>
      <button id="next" type="button">${forward} &rarr;</button>`;
    el('prev').addEventListener('click', () => { state.page = Math.max(0, state.page - 1); load(); });
    el('next').addEventListener('click', () => { state.page += 1; load(); });
    return {
      show({ page, size, total }) {
        const pages = Math.max(1, Math.ceil(total / size));
        el('pageinfo').textContent = `page ${page + 1} of ${pages} · ${total} ${noun}`;
        el('prev').disabled = page === 0;
        el('next').disabled = page + 1 >= pages;
      },
    };
  }

  /** Calls fn at most once per {@code millis}, trailing: for refreshes driven by many events. */
  function throttle(fn, millis) {
    let timer = null;
    let again = false;
    return () => {
      if (timer) {
        again = true;
        return;
      }
      fn();
      timer = setTimeout(() => {
        timer = null;
        if (again) {
          again = false;
          fn();
        }
      }, millis);
    };
  }

  return {
    el, esc, param, api, post, ApiError, problemHtml, showProblem, caller, mayOperate, header,
    shortType, time, badge, follow, throttle, asOf, withAsOf, timeControl, pager,
  };
})();
