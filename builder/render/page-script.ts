// The page's one inline script, as the exact text the browser runs: its SHA-256 goes into the Content-Security-Policy,
// so it is a constant (no build step, no per-run data; the data travels in the `data-page` attribute). It loads the
// present-tense documents of its own origin (so the edge's freshness rule decides, the forecast's own included), writes
// them with textContent only, and shows `unknown` itself when that fails and the build's copy is past `stale_after` by
// the reader's clock. Plain ES2017 for every browser the page targets; String.raw keeps the regular expressions'
// backslashes. Leading indentation, comment lines and the line breaks after `;` and `{` and before `}` are dropped from
// the shipped text (no string or regular expression in it spans lines), which keeps the page under its budget.
export const PAGE_SCRIPT = String.raw`(function () {
  'use strict';
  var root = document.getElementById('page');
  if (!root || !window.fetch || !window.Intl) return;
  var cfg = JSON.parse(root.getAttribute('data-page').replace(/'/g, '"'));
  var L = cfg.lang, T = cfg.i18n, lastCheck = cfg.last_check;
  function $(id) { return document.getElementById(id); }
  function put(id, s) { var e = $(id); if (e) e.textContent = s == null ? '' : String(s); }
  function fill(s, v) { return s.replace(/\{\{(\w+)\}\}/g, function (m, k) { return v[k] == null ? '' : String(v[k]); }); }
  function time(iso, zone) {
    var o = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' };
    if (zone) o.timeZone = zone;
    return new Intl.DateTimeFormat(L, o).format(new Date(iso));
  }
  function ago(iso) {
    var s = (Date.parse(iso) - Date.now()) / 1000, a = Math.abs(s);
    var u = a < 45 ? ['second', 0] : a < 3600 ? ['minute', 60] : a < 86400 ? ['hour', 3600] : ['day', 86400];
    return new Intl.RelativeTimeFormat(L, { numeric: 'auto' }).format(u[1] ? Math.round(s / u[1]) : 0, u[0]);
  }
  function stamp(id, iso) { var e = $(id); if (e && iso) { e.setAttribute('datetime', iso); e.textContent = time(iso, 'UTC'); } }
  function safeUrl(u) { return typeof u === 'string' && /^https?:\/\//i.test(u) ? u : null; }
  function freshness() {
    put('checked-rel', lastCheck ? fill(T.checked, { relative: ago(lastCheck) }) : T.never_checked);
    stamp('checked-at', lastCheck);
  }
  function setState(state, explanation) {
    var box = $('state-box');
    if (box) box.className = 'state state-' + state;
    put('state', T.state[state] || state);
    put('explanation', explanation);
  }
  function upcoming(u) {
    var sec = $('upcoming');
    if (!sec) return;
    if (!u || typeof u !== 'object') { sec.hidden = true; return; }
    var when = typeof u.scheduled_for === 'string' ? u.scheduled_for : null;
    if (when) { stamp('up-utc', when); put('up-local', time(when)); } else { put('up-utc', T.no_time); put('up-local', ''); }
    put('up-summary', u.summary);
    put('up-text', u.text);
    var link = $('up-link'), src = u.source && typeof u.source === 'object' ? u.source.url : u.source_url;
    var href = safeUrl(src);
    if (link) { link.hidden = !href; if (href) link.setAttribute('href', href); }
    sec.hidden = false;
  }
  function reach(r, w) { put('today-reach', r ? [r.summary, r.note].filter(Boolean).join(' \u00b7 ') : ''); put('banked-warning', w && w.note); }
  function checks(list) {
    var body = $('checks-body');
    if (!body || !Array.isArray(list)) return;
    var table = $('checks-table'), none = $('checks-none');
    if (table) table.hidden = list.length === 0;
    if (none) none.hidden = list.length > 0;
    while (body.firstChild) body.removeChild(body.firstChild);
    // Each cell carries its column's heading: a narrow screen shows the rows stacked, each value labelled.
    var heads = table ? table.querySelectorAll('thead th') : [];
    list.forEach(function (c) {
      var tr = document.createElement('tr');
      var cells = [c.source, (c.ok ? '\u2713 ' + T.ok : '\u2717 ' + T.failed), c.checked_at ? time(c.checked_at, 'UTC') : '', c.detail];
      cells.forEach(function (v, i) {
        var td = document.createElement(i === 0 ? 'th' : 'td');
        if (i === 0) { td.setAttribute('scope', 'row'); td.className = 'ident'; }
        if (heads[i]) td.setAttribute('data-label', heads[i].textContent);
        if (i === 1) td.className = c.ok ? 'ok' : 'bad';
        td.textContent = v == null ? '' : String(v);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }
  function get(path) {
    return fetch(path + '?lang=' + encodeURIComponent(L), { credentials: 'omit', cache: 'no-cache' }).then(function (r) {
      if (!r.ok) throw new Error(path + ' ' + r.status);
      return r.json();
    });
  }
  // model/status.ts's computeExplanation as the reader's clock moves: from the instant the build's answer expires
  // it is the expired case; before it, the build's own sentence (rendered from the same facts and the same decision) holds.
  function explain(now) {
    var gen = Date.parse(cfg.generated_at), sa = Date.parse(cfg.stale_after);
    var exp = sa > gen ? sa : gen + 1800000;
    return now >= exp ? fill(T.expired, { since: sa > gen ? cfg.stale_after : new Date(exp).toISOString().slice(0, 19) + 'Z' }) : null;
  }
  function chance(id, p) {
    var e = $(id), n = typeof p != 'number';
    if (e) { e.className = n ? 'big none' : 'big'; e.textContent = n ? T.none : p.toLocaleString(L, { style: 'percent', maximumFractionDigits: 1 }); }
  }
  function forecast(f) { chance('p24', f.probability_24h); chance('p48', f.probability_48h); put('fc-explanation', f.explanation); }
  // The forecast the edge serves now: past the forecast's own stale_after, its expired one. When that cannot be loaded,
  // the build's copy holds until that instant by the reader's clock; from then on it shows no probability.
  var fc = get('/api/forecast').then(forecast).catch(function () {
    if (Date.now() >= Date.parse(cfg.forecast_stale_after)) forecast({});
  });
  function failed() {
    var now = Date.now(), past = now > Date.parse(cfg.stale_after);
    if (past) {
      var why = explain(now);
      if (why !== null) { setState('unknown', why); reach(null, null); }
      put('fresh-note', fill(T.stale, { time: time(cfg.stale_after, 'UTC') }));
    } else {
      put('fresh-note', fill(T.offline, { time: time(cfg.generated_at, 'UTC') }));
    }
    root.setAttribute('data-live', past ? 'stale' : 'offline');
  }
  Promise.all([get('/api/latest'), get('/api/status'), fc]).then(function (r) {
    var latest = r[0], status = r[1], today = latest.today || {};
    lastCheck = latest.last_source_check_at || null;
    setState(today.state, today.explanation);
    upcoming('upcoming' in latest ? latest.upcoming : status.upcoming);
    reach(latest.today_reach, latest.banked_reset_warning);
    checks(status.source_checks);
    freshness();
    put('fresh-note', '');
    root.setAttribute('data-live', 'ok');
  }, failed);
  freshness();
  setInterval(freshness, 30000);
})();`
  .replace(/\n[ \t]+/g, '\n')
  .replace(/\n\/\/[^\n]*/g, '')
  .replace(/([;{])\n|\n(?=\})/g, '$1');
