import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pageKey, LANGS } from '../../builder/contract.ts';
import { computeAccuracy, type HorizonSummary } from '../../builder/model/accuracy.ts';
import type { Signal, SourceCheck } from '../../builder/model/schemas.ts';
import { computeToday } from '../../builder/model/status.ts';
import { renderApi, type RenderInput } from '../../builder/render/documents.ts';
import { translator } from '../../builder/render/i18n.ts';
import { PAGE_CSP } from '../../builder/render/page-csp.ts';
import { PAGE_MAX_BYTES, renderPages } from '../../builder/render/page.tsx';
import { safeHref } from '../../builder/render/page-format.ts';
import { PAGE_SCRIPT } from '../../builder/render/page-script.ts';
import { PAGE_CSS } from '../../builder/render/page-style.ts';
import type { OutputDocument } from '../../builder/render/output.ts';
import { testEvent } from '../helpers/events.ts';

const asOf = new Date('2026-11-21T12:00:00Z');
const XSS_TEXT = '<img src=x onerror="window.__xss=1"> and </blockquote><script>window.__xss=2</script>';
const XSS_AUTHOR = '<script>window.__xss=3</script>';

function input(over: Partial<RenderInput> = {}): RenderInput {
  const hostile = {
    ...testEvent('2026-11-20T10:00:00Z'),
    evidence_text: XSS_TEXT,
    sources: [{ platform: 'X', url: 'https://x.com/a/status/1', author: XSS_AUTHOR }],
  };
  const events = [hostile, testEvent('2026-06-19T10:00:00Z', 'banked_grant')];
  const check: SourceCheck = {
    source: 'reset-tracker',
    kind: 'reset_tracker',
    url: 'http://127.0.0.1/',
    ok: true,
    http_status: 200,
    latency_ms: 3,
    items_read: 2,
    checked_at: '2026-11-21T11:56:00Z',
    detail: { code: 'ok', params: {} },
  };
  const signal: Signal = {
    id: 's1',
    kind: 'feed_item',
    source: 'feed',
    title: '<b onmouseover=alert(1)>reset?</b>',
    excerpt: 'x',
    url: 'javascript:alert(1)',
    published_at: null,
    first_seen_at: '2026-11-21T11:00:00Z',
    review: 'awaiting_review',
    promoted_to: null,
  };
  return {
    asOf,
    events,
    today: computeToday(events, [check], asOf),
    latestReset: hostile,
    latestVerifiedReset: null,
    checks: [check],
    upstreamStatus: {
      page_url: 'https://status.example/',
      indicator: 'none',
      description: '<i>All good</i>',
      updated_at: null,
      components: [],
      fetched_at: '2026-11-21T11:56:00Z',
    },
    signals: [signal],
    forecast: {
      probability_24h: null,
      probability_48h: 0.25,
      base_rate_24h: null,
      base_rate_48h: null,
      sample_size: 3,
      model_version: 'hazard-v2',
      explanation: { code: 'insufficient_data', params: {} },
      last_global_reset_at: null,
    },
    accuracy: accuracy({ brier: 0.12, climatology_brier: 0.2, sample_size: 10 }),
    archives: [],
    ...over,
  };
}

const unlabelled = (html: string) => html.replace(/ data-label="[^"]*"/g, '');

/** An accuracy with no log, its summary's scores replaced. */
function accuracy(h24: Partial<HorizonSummary>, h48: Partial<HorizonSummary> = {}): RenderInput['accuracy'] {
  const a = computeAccuracy([], [], asOf);
  return { ...a, summary: { h24: { ...a.summary.h24, ...h24 }, h48: { ...a.summary.h48, ...h48 } } };
}

/** The API documents with `upcoming` added to every latest document, as the reach work publishes it. */
function withUpcoming(docs: OutputDocument[], upcoming: unknown): OutputDocument[] {
  return docs.map((d) =>
    /^api\/\w\w\/latest\.json$/.test(d.key) ? { ...d, body: JSON.stringify({ ...JSON.parse(d.body), upcoming }) } : d,
  );
}

const pages = (docs: OutputDocument[], events = input().events) =>
  new Map(renderPages({ asOf, docs, events }).map((d) => [d.key, d]));

describe('renderPages', () => {
  const docs = renderApi(input());
  const all = pages(docs);

  it('renders one HTML page per language with its lang, hreflang links, the contract headers and under the size budget', () => {
    for (const lang of LANGS) {
      const p = all.get(pageKey(lang))!;
      expect(p.contentType).toBe('text/html; charset=utf-8');
      expect(p.contentLanguage).toBe(lang);
      expect(p.cacheControl).toBe('public, max-age=30');
      expect(p.body.startsWith(`<!doctype html><html lang="${lang}">`)).toBe(true);
      for (const l of LANGS) expect(p.body).toContain(`<link rel="alternate" hreflang="${l}" href="/${l}/"/>`);
      expect(Buffer.byteLength(p.body)).toBeLessThan(PAGE_MAX_BYTES);
    }
  });

  it("shows today's explanation exactly as /api/latest gives it, in every language", () => {
    for (const lang of LANGS) {
      const latest = JSON.parse(docs.find((d) => d.key === `api/${lang}/latest.json`)!.body) as {
        today: { explanation: string };
      };
      expect(all.get(pageKey(lang))!.body).toContain(`<p id="explanation">${latest.today.explanation}</p>`);
    }
  });

  it('escapes upstream markup in record text, authors, signal titles and status words, and drops non-http links', () => {
    const body = all.get(pageKey('en'))!.body;
    expect(body).toContain('&lt;img src=x onerror=');
    expect(body).toContain('&lt;script>window.__xss=3&lt;/script>');
    expect(body).toContain('&lt;b onmouseover=alert(1)>reset?&lt;/b>');
    expect(body).toContain('&lt;i>All good&lt;/i>');
    expect(body).not.toContain('<img');
    expect(body).not.toContain('javascript:');
    expect(body.match(/<script/g)).toHaveLength(1);
    expect(body.match(/<style/g)).toHaveLength(1);
  });

  it('says there is no reliable probability for a null forecast, never 0%, and shows the sample size', () => {
    for (const lang of LANGS) {
      const t = translator(lang);
      const body = all.get(pageKey(lang))!.body;
      expect(body).toContain(`<dd id="p24" class="big none">${t('page:forecast.none')}</dd>`);
      expect(body).not.toMatch(/id="p24" class="big[^"]*">0/);
      expect(body).toContain(t('page:forecast.sample', { count: 3 }));
    }
  });

  it('pins the inline script and style by hash in the meta Content-Security-Policy, which allows no other source', () => {
    const body = all.get(pageKey('de'))!.body;
    const hash = (s: string) => createHash('sha256').update(s).digest('base64');
    expect(PAGE_CSP).toContain(`script-src 'sha256-${hash(PAGE_SCRIPT)}'`);
    expect(PAGE_CSP).toContain(`style-src 'sha256-${hash(PAGE_CSS)}'`);
    expect(PAGE_CSP).toContain("default-src 'none'");
    expect(PAGE_CSP).not.toMatch(/unsafe|https?:|\*/);
    expect(body).toContain(`<meta http-equiv="Content-Security-Policy" content="${PAGE_CSP}"/>`);
    expect(body).toContain(`<script>${PAGE_SCRIPT}</script>`);
    expect(body).toContain(`<style>${PAGE_CSS}</style>`);
  });

  it('shows an announced reset in UTC with its post when latest carries `upcoming`, escaped, and hides the section when null', () => {
    const upcoming = {
      id: 'up-1',
      type: 'global_reset',
      announced_at: '2026-11-21T10:00:00Z',
      scheduled_for: '2026-11-21T17:00:00Z',
      text: '<script>window.__xss=4</script> at 9am PT',
      summary: 'A global reset is announced.',
      source: { platform: 'X', url: 'https://x.com/b/status/2' },
    };
    const withIt = pages(withUpcoming(docs, upcoming));
    const en = withIt.get(pageKey('en'))!.body;
    expect(en).toContain('<section id="upcoming" aria-labelledby="up-h">');
    expect(en).toContain('<time id="up-utc" datetime="2026-11-21T17:00:00Z">Nov 21, 2026, 17:00 UTC</time>');
    expect(en).toContain('&lt;script>window.__xss=4&lt;/script> at 9am PT');
    expect(en).toContain('<a id="up-link" href="https://x.com/b/status/2">');
    expect(withIt.get(pageKey('ko'))!.body).toContain('17:00');
    const none = pages(withUpcoming(docs, null)).get(pageKey('en'))!.body;
    expect(none).toContain('<section id="upcoming" aria-labelledby="up-h" hidden>');
    expect(all.get(pageKey('en'))!.body).toContain('<section id="upcoming" aria-labelledby="up-h" hidden>');
  });

  it('tells kinds apart in the timeline by shape and says every count in words', () => {
    const body = all.get(pageKey('en'))!.body;
    expect(body).toMatch(/<g class="k-global_reset m archived"><circle /);
    expect(body).toMatch(/<g class="k-banked_grant m archived"><rect /);
    expect(body).toContain('global resets 1 (verified 0), banked grants 1, policy changes 0');
  });

  it("renders a variant of the present-tense documents (the edge's unknown ones) into pages at the variant's keys", () => {
    const variant = docs.flatMap((d) => {
      const m = /^api\/(\w\w)\/(latest|status|forecast|accuracy|signals)\.json$/.exec(d.key);
      if (!m) return [];
      const doc = JSON.parse(d.body) as { today?: { state: string; explanation: string } };
      if (doc.today) doc.today = { ...doc.today, state: 'unknown', explanation: `unknown in ${m[1]}` };
      return [{ ...d, key: `variant/${m[1]}/${m[2]}.json`, body: JSON.stringify(doc) }];
    });
    const out = renderPages({
      asOf,
      docs: variant,
      events: input().events,
      docKeyOf: (l, n) => `variant/${l}/${n}.json`,
      pageKeyOf: (l) => `variant/${l}/index.html`,
    });
    expect(out.map((p) => p.key)).toEqual(LANGS.map((l) => `variant/${l}/index.html`));
    const ja = out.find((p) => p.key === 'variant/ja/index.html')!.body;
    expect(ja).toContain('<p id="state-box" class="state state-unknown"><span id="state">不明</span></p>');
    expect(ja).toContain('<p id="explanation">unknown in ja</p>');
  });

  it('draws forecast reliability only from scored horizons, and writes every value in its table', () => {
    const body = all.get(pageKey('en'))!.body;
    expect(body).toContain(
      '<svg viewBox="0 0 360 100" role="img" aria-labelledby="rel-title"><title id="rel-title">24 hours: forecast 0.12, base rate 0.2, 10 scored. 48 hours: forecast not scored yet, base rate not scored yet, 0 scored.</title>',
    );
    expect(body.match(/<rect class="bar-f" x="100"/g)).toHaveLength(1);
    expect(body.match(/<rect class="bar-c" x="100"/g)).toHaveLength(1);
    // Column labels (data-label, for the stacked rows on a phone) aside, the table's cells read as written.
    const none = unlabelled(pages(renderApi(input({ accuracy: accuracy({}) }))).get(pageKey('en'))!.body);
    expect(none).not.toContain('aria-labelledby="rel-title"');
    expect(none).toContain('<th scope="row">24 hours</th><td>not scored yet</td>');
    expect(none).not.toContain('aria-labelledby="cal-title"');
  });

  it('draws the calibration diagram from the scored bins only, with each bin in its table', () => {
    const a = accuracy({ brier: 0.1, climatology_brier: 0.2, sample_size: 30 });
    const bin = (lower: number, count: number, mean: number | null, observed: number | null) => ({
      lower,
      upper: lower + 0.1,
      count,
      mean_probability: mean,
      observed_frequency: observed,
    });
    a.reliability = { h24: [bin(0, 20, 0.04, 0.05), bin(0.1, 0, null, null)], h48: [bin(0.2, 10, 0.25, 0.3)] };
    const body = unlabelled(pages(renderApi(input({ accuracy: a }))).get(pageKey('de'))!.body);
    const start = body.indexOf('<svg class="calibration"');
    const chart = body.slice(start, body.indexOf('</svg>', start));
    expect(chart).toContain('aria-labelledby="cal-title"');
    expect(chart.match(/<circle class="m verified"/g)).toHaveLength(1);
    expect(chart.match(/<rect class="m verified"/g)).toHaveLength(1);
    const pct = (n: number) => `${n}\u00a0%`; // German writes a no-break space before the sign
    expect(body).toContain(
      `<th scope="row">24 Stunden</th><td>${pct(0)}–${pct(10)}</td><td>${pct(4)}</td><td>${pct(5)}</td><td>20</td>`,
    );
    expect(body).toContain(
      `<th scope="row">48 Stunden</th><td>${pct(20)}–${pct(30)}</td><td>${pct(25)}</td><td>${pct(30)}</td><td>10</td>`,
    );
    expect(body).not.toContain(`${pct(10)}–${pct(20)}`);
  });

  it('keeps a year of daily events and a fully scored calibration under the size budget', () => {
    const events = Array.from({ length: 365 }, (_, i) =>
      testEvent(new Date(asOf.getTime() - i * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z')),
    );
    const full = accuracy(
      { brier: 0.1, climatology_brier: 0.2, sample_size: 120 },
      { brier: 0.2, climatology_brier: 0.25, sample_size: 120 },
    );
    const fill = (bins: typeof full.reliability.h24) =>
      bins.map((b) => ({ ...b, count: 12, mean_probability: b.lower + 0.05, observed_frequency: b.lower + 0.03 }));
    full.reliability = { h24: fill(full.reliability.h24), h48: fill(full.reliability.h48) };
    const big = pages(renderApi(input({ events, latestReset: events[0]!, accuracy: full })), events);
    for (const lang of LANGS) expect(Buffer.byteLength(big.get(pageKey(lang))!.body)).toBeLessThan(PAGE_MAX_BYTES);
    expect(big.get(pageKey('en'))!.body).toContain('<a href="/api/history?lang=en">and 305 more in the API</a>');
  });
});

describe('safeHref', () => {
  it('lets through only absolute http and https URLs', () => {
    expect(safeHref('https://x.com/a')).toBe('https://x.com/a');
    expect(safeHref('http://example.org/')).toBe('http://example.org/');
    for (const bad of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,x',
      '/relative',
      '//host/x',
      'vbscript:x',
      ' java\tscript:x',
      null,
      undefined,
    ])
      expect(safeHref(bad)).toBeNull();
  });
});

// run() renders each language's page seven times a build (the page, five unknown variants and the one with the expired
// forecast): a variant's page reads the variant's documents, wherever docKeyOf says they lie.
describe('renderPages of a variant', () => {
  const docs = renderApi(input());
  const variantOf = (source: OutputDocument[], change: (name: string, doc: Record<string, unknown>) => void) =>
    source.flatMap((d) => {
      const m = /^api\/(\w\w)\/(latest|status|forecast|accuracy|signals)\.json$/.exec(d.key);
      if (!m) return [];
      const doc = JSON.parse(d.body) as Record<string, unknown>;
      change(m[2]!, doc);
      return [{ ...d, key: `variant/${m[1]}/${m[2]}.json`, body: JSON.stringify(doc) }];
    });
  const asVariant = {
    docKeyOf: (l: string, n: string) => `variant/${l}/${n}.json`,
    pageKeyOf: (l: string) => `variant/${l}/index.html`,
  };

  it("writes the variant's today and forecast, at the variant's page key", () => {
    const events = input().events;
    const variant = variantOf(docs, (name, doc) => {
      if (name === 'latest' || name === 'status')
        doc.today = { ...(doc.today as object), state: 'unknown', explanation: 'unknown now' };
      if (name === 'forecast') doc.explanation = 'another forecast';
    });
    const pages = renderPages({ asOf, docs: variant, events, ...asVariant });
    expect(pages.map((p) => p.key)).toEqual(LANGS.map((l) => `variant/${l}/index.html`));
    const en = pages.find((p) => p.key === 'variant/en/index.html')!.body;
    expect(en).toContain('<p id="explanation">unknown now</p>');
    expect(en).toContain('<p id="fc-explanation">another forecast</p>');
    expect(renderPages({ asOf, docs, events }).find((p) => p.key === 'api/en/index.html')!.body).not.toContain(
      'unknown now',
    );
  });
});
