// status.openai.com as it answered in September 2026 (incident.io), replayed from the shared captures
// (test/fixtures/real-upstreams/openai-status/, provenance in its README) on a loopback server with the real
// paths. Expected answers come from the facts that README documents, not from this code's output.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { computeAccuracy } from '../../builder/model/accuracy.ts';
import { applySourceResults } from '../../builder/model/apply.ts';
import { emptyState, SignalSchema, UpstreamStatusSchema } from '../../builder/model/schemas.ts';
import { computeToday } from '../../builder/model/status.ts';
import { renderApi } from '../../builder/render/documents.ts';
import { sourceConfigsFromEnv } from '../../builder/sources/config.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { fetchAllSources } from '../../builder/sources/index.ts';
import {
  fetchStatusIncidents,
  MAX_FEED_INCIDENTS,
  MAX_INCIDENT_UPDATES,
} from '../../builder/sources/status-incidents.ts';
import { fetchStatusPage } from '../../builder/sources/status-page.ts';
import { sendJson, startServer, testFetcher, type TestServer } from './helpers.ts';
import {
  capture as captureFile,
  CLI,
  CODEX_API,
  CODEX_WEB,
  DESKTOP,
  ISSUES_WITH_CODEX_ID,
  issuesWithCodex,
  SORA,
  VS_CODE,
  type FeedIncident,
} from '../real-upstreams/replay.ts';

const capture = (file: string): string => captureFile(`openai-status/${file}`);
const OPERATIONAL = 'summary.operational.reconstructed.json';
const OUTAGE_0925 = 'summary.codex-full-outage.2026-09-25.reconstructed.json';
const FEED = 'proxy-status.openai.com.incidents.captured.json';
const NOT_FOUND = 'incidents-unresolved.404.html';

const SUMMARY_PATH = '/api/v2/summary.json';
const FEED_PATH = '/proxy/status.openai.com/incidents';

type Answer = { status: number; type: string; body: string } | 'silent';
const json = (body: string | object): Answer => ({
  status: 200,
  type: 'application/json',
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const notFoundPage: Answer = { status: 404, type: 'text/html; charset=utf-8', body: capture(NOT_FOUND) };

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** status.openai.com on loopback: the summary and the incident feed on their real paths; anything else is its 404 page. */
async function statusHost(answers: { summary?: Answer; feed?: Answer }): Promise<TestServer> {
  server = await startServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    const a = (p === SUMMARY_PATH ? answers.summary : p === FEED_PATH ? answers.feed : undefined) ?? notFoundPage;
    if (a !== 'silent') send(res, a);
  });
  return server;
}

function send(res: ServerResponse, a: Exclude<Answer, 'silent'>): void {
  if (a.type === 'application/json') return sendJson(res, a.body, a.status);
  res.writeHead(a.status, { 'content-type': a.type });
  res.end(a.body);
}

const pageConfig = (s: TestServer, over: Partial<SourceConfig> = {}): SourceConfig => ({
  id: 'status-page',
  kind: 'status_page',
  url: `${s.url}${SUMMARY_PATH}`,
  ...over,
});
const feedConfig = (s: TestServer, over: Partial<SourceConfig> = {}): SourceConfig => ({
  id: 'status-incidents',
  kind: 'status_incidents',
  url: `${s.url}${FEED_PATH}`,
  ...over,
});

const capturedFeed = (): { incidents: FeedIncident[] } => JSON.parse(capture(FEED)) as { incidents: FeedIncident[] };
const byName = (feed: { incidents: FeedIncident[] }, name: string): FeedIncident =>
  feed.incidents.find((i) => i.name === name)!;

const AT_0925 = new Date('2026-09-25T23:15:00Z');

describe('status.openai.com summary (incident.io): Codex components by membership', () => {
  it('the 2026-09-25 outage: Codex Web, Codex API, CLI and VS Code extension in full_outage, as the page says it', async () => {
    const s = await statusHost({ summary: json(capture(OUTAGE_0925)) });
    const r = await fetchStatusPage(testFetcher(), pageConfig(s), AT_0925);
    expect(r.check).toMatchObject({ ok: true, http_status: 200, detail: { code: 'ok', params: {} } });
    const status = UpstreamStatusSchema.parse(r.status);
    const statusOf = Object.fromEntries(status.components.map((c) => [c.id, `${c.name}: ${c.status}`]));
    expect(statusOf).toEqual({
      [CODEX_WEB]: 'Codex Web: full_outage',
      [CODEX_API]: 'Codex API: full_outage',
      [CLI]: 'CLI: full_outage',
      [VS_CODE]: 'VS Code extension: full_outage',
      [DESKTOP]: 'Codex in ChatGPT Desktop: operational',
    });
    // The summary has no `incidents` key: it can never yield a signal itself.
    expect(r.signals).toEqual([]);
    expect(r.check.items_read).toBe(5);
  });

  it("shows full_outage and the page's own time, named as such, in /api/status in every language", async () => {
    // mid-September the page's updated_at read 2026-07-09 (README): the page's time, never our freshness.
    const at = new Date('2026-09-15T12:00:00Z');
    const s = await statusHost({ summary: json(capture(OPERATIONAL)) });
    const calm = await fetchStatusPage(testFetcher(), pageConfig(s), at);
    expect(calm.status!.updated_at!.slice(0, 10)).toBe('2026-07-09');
    expect(calm.status!.fetched_at).toBe('2026-09-15T12:00:00Z');
    await s.close();
    const down = await fetchStatusPage(
      testFetcher(),
      pageConfig(await statusHost({ summary: json(capture(OUTAGE_0925)) })),
      AT_0925,
    );
    const docs = renderApi({
      asOf: AT_0925,
      events: [],
      today: computeToday([], [], AT_0925),
      latestReset: null,
      latestVerifiedReset: null,
      checks: [down.check],
      upstreamStatus: down.status!,
      signals: [],
      forecast: {
        probability_24h: null,
        probability_48h: null,
        base_rate_24h: null,
        base_rate_48h: null,
        sample_size: 0,
        model_version: 'hazard-v3',
        explanation: { code: 'insufficient_data', params: {} },
        last_global_reset_at: null,
      },
      accuracy: computeAccuracy([], [], AT_0925),
      archives: [],
    });
    for (const lang of ['en', 'de', 'ko', 'ja', 'zh']) {
      const doc = JSON.parse(docs.find((d) => d.key === `api/${lang}/status.json`)!.body) as {
        upstream_status: Record<string, unknown> & { components: { name: string; status: string }[] };
      };
      const up = doc.upstream_status;
      // The old name stays, the same value, as a deprecated alias for api_version 1 (schemas.ts).
      expect(up.page_updated_at, lang).toMatch(/^2026-09-25T22:5\d:\d\dZ$/);
      expect(up.updated_at, lang).toBe(up.page_updated_at);
      expect(up.fetched_at, lang).toBe('2026-09-25T23:15:00Z');
      expect(
        up.components
          .filter((c) => c.status === 'full_outage')
          .map((c) => c.name)
          .sort(),
        lang,
      ).toEqual(['CLI', 'Codex API', 'Codex Web', 'VS Code extension']);
    }
  });

  it('the configured id list overrides the default (RESET_STATUS_CODEX_COMPONENTS)', async () => {
    const s = await statusHost({ summary: json(capture(OUTAGE_0925)) });
    const [page] = sourceConfigsFromEnv({
      RESET_STATUS_PAGE_URL: `${s.url}${SUMMARY_PATH}`,
      RESET_STATUS_CODEX_COMPONENTS: `${CLI},${SORA}`,
      RESET_UPSTREAM_URL: '',
      RESET_TIMELINE_URL: '',
      RESET_POST_EMBED_URL: '',
      RESET_SIGNAL_FEEDS: '',
    });
    const r = await fetchStatusPage(testFetcher(), page!, AT_0925);
    expect(r.status!.components.map((c) => c.name)).toEqual(['Sora', 'CLI']);
  });

  it('falls back to the name when none of the listed ids is on the page (then CLI and VS Code extension cannot be known)', async () => {
    const summary = JSON.parse(capture(OUTAGE_0925)) as { components: { id: string; name: string }[] };
    // Every component re-created under a new id.
    summary.components.forEach((c, n) => (c.id = `01NEW${String(n).padStart(21, '0')}`));
    const s = await statusHost({ summary: json(summary) });
    const r = await fetchStatusPage(testFetcher(), pageConfig(s), AT_0925);
    expect(r.status!.components.map((c) => c.name).sort()).toEqual([
      'Codex API',
      'Codex Web',
      'Codex in ChatGPT Desktop',
    ]);
    // An empty configured list is the name match alone, on the real ids too.
    const named = await fetchStatusPage(testFetcher(), pageConfig(s, { codexComponents: [] }), AT_0925);
    expect(named.status!.components.map((c) => c.name).sort()).toEqual([
      'Codex API',
      'Codex Web',
      'Codex in ChatGPT Desktop',
    ]);
  });
});

describe('status.openai.com incident feed (/proxy/<host>/incidents)', () => {
  it('the 09-25 "Issues with Codex" incident is a status_incident signal at 23:15Z, within the same tick', async () => {
    const feed = capturedFeed();
    feed.incidents.unshift(issuesWithCodex());
    const s = await statusHost({ summary: json(capture(OUTAGE_0925)), feed: json(feed) });
    const configs = sourceConfigsFromEnv({
      RESET_STATUS_PAGE_URL: `${s.url}${SUMMARY_PATH}`,
      RESET_STATUS_INCIDENTS_URL: `${s.url}${FEED_PATH}`,
      RESET_UPSTREAM_URL: '',
      RESET_TIMELINE_URL: '',
      RESET_POST_EMBED_URL: '',
      RESET_SIGNAL_FEEDS: '',
    });
    expect(configs.map((c) => c.kind)).toEqual(['status_page', 'status_incidents']);
    const results = await fetchAllSources(configs, testFetcher(), AT_0925);
    const incidents = results.find((r) => r.check.kind === 'status_incidents')!;
    // Six incidents of valid shape; the five captured ones are from July and August, outside the 7-day window.
    expect(incidents.check).toMatchObject({
      source: 'status-incidents',
      ok: true,
      http_status: 200,
      items_read: 6,
      detail: { code: 'ok', params: {} },
    });
    expect(incidents.signals!.map((x) => SignalSchema.parse(x))).toEqual([
      {
        id: expect.stringMatching(/^status-incident-01m5x0recnstrvctedc0dex925-[0-9a-f]{8}$/),
        kind: 'status_incident',
        source: 'status-incidents',
        title: 'Issues with Codex',
        excerpt: 'We are investigating the issue for the listed services.',
        url: `${s.url}/incidents/${ISSUES_WITH_CODEX_ID}`,
        published_at: '2026-09-25T22:58:00Z',
        first_seen_at: '2026-09-25T23:15:00Z',
        review: 'awaiting_review',
        promoted_to: null,
      },
    ]);
    const state = applySourceResults(emptyState(), results, [], AT_0925);
    expect(state.signals.map((x) => x.title)).toEqual(['Issues with Codex']);
    expect(state.upstream_status!.components.filter((c) => c.status === 'full_outage')).toHaveLength(4);
  });

  it('the Sora full outage is not a Codex incident; a Codex one is, by a Codex component id even when its name does not say Codex', async () => {
    const s = await statusHost({ feed: json(capture(FEED)) });
    // 07:00Z on 07-11: Sora's "Elevated Errors for Sora API" (full_outage) began at 06:35Z.
    const sora = await fetchStatusIncidents(testFetcher(), feedConfig(s), new Date('2026-07-11T07:00:00Z'));
    expect(sora.signals).toEqual([]);
    // The two Codex incidents of 07-18 and 08-20 lie in that build's future: refused and counted, as any record.
    expect(sora.check).toMatchObject({
      ok: true,
      items_read: 5,
      detail: { code: 'ok_with_rejections', params: { rejected: 2, reasons: 'future_date 2' } },
    });
    await s.close();

    // "Some users are unable to access Codex" (07-18, CLI and Codex in ChatGPT Desktop), renamed so only its ids tell.
    const feed = capturedFeed();
    byName(feed, 'Some users are unable to access Codex').name = 'Access-denied errors for some users';
    const s2 = await statusHost({ feed: json(feed) });
    const at = new Date('2026-07-18T09:00:00Z');
    const r = await fetchStatusIncidents(testFetcher(), feedConfig(s2), at);
    expect(r.signals!.map((x) => [x.title, x.published_at, x.excerpt])).toEqual([
      // Instants are kept to the second (the API's format).
      [
        'Access-denied errors for some users',
        '2026-07-18T08:05:37Z',
        'We have identified an issue causing some users to receive access-denied errors when using the Codex desktop app and CLI.',
      ],
    ]);
    // The configured list overrides the default here too: without those two ids it is nobody's Codex incident.
    const other = await fetchStatusIncidents(testFetcher(), feedConfig(s2, { codexComponents: [CODEX_WEB] }), at);
    expect(other.signals).toEqual([]);
    await s2.close();

    // "Elevated Codex API authentication errors" (08-20) with its component lists emptied: its name alone tells.
    const named = capturedFeed();
    Object.assign(byName(named, 'Elevated Codex API authentication errors'), {
      affected_components: [],
      component_impacts: [],
    });
    const s3 = await statusHost({ feed: json(named) });
    const byItsName = await fetchStatusIncidents(testFetcher(), feedConfig(s3), new Date('2026-08-20T17:00:00Z'));
    expect(byItsName.signals!.map((x) => x.title)).toEqual(['Elevated Codex API authentication errors']);
  });

  it("a 404 HTML page fails the feed's own check; the summary check stays ok and its status is kept", async () => {
    const s = await statusHost({ summary: json(capture(OUTAGE_0925)) });
    // The incident feed derived from the page address, as in production; this host answers it with its 404 page.
    const configs = sourceConfigsFromEnv({
      RESET_STATUS_PAGE_URL: `${s.url}${SUMMARY_PATH}`,
      RESET_UPSTREAM_URL: '',
      RESET_TIMELINE_URL: '',
      RESET_POST_EMBED_URL: '',
      RESET_SIGNAL_FEEDS: '',
    });
    expect(configs.find((c) => c.kind === 'status_incidents')!.url).toBe(`${s.url}/proxy/127.0.0.1/incidents`);
    const results = await fetchAllSources(configs, testFetcher(), AT_0925);
    const [page, feed] = results;
    expect(page!.check).toMatchObject({ source: 'status-page', ok: true });
    expect(feed!.check).toMatchObject({
      source: 'status-incidents',
      kind: 'status_incidents',
      ok: false,
      http_status: 404,
      items_read: 0,
      detail: { code: 'http_status', params: { status: 404 } },
    });
    const state = applySourceResults(emptyState(), results, [], AT_0925);
    expect(state.upstream_status!.components).toHaveLength(5);
    expect(state.checks.map((c) => [c.source, c.ok])).toEqual([
      ['status-page', true],
      ['status-incidents', false],
    ]);
  });

  it('fails alone on HTML served as 200, a new shape, or silence', async () => {
    const s = await statusHost({
      summary: json(capture(OPERATIONAL)),
      feed: { status: 200, type: 'text/html', body: capture(NOT_FOUND) },
    });
    const at = new Date('2026-09-29T16:30:00Z');
    expect((await fetchStatusIncidents(testFetcher(), feedConfig(s), at)).check).toMatchObject({
      ok: false,
      detail: { code: 'invalid_json' },
    });
    await s.close();
    const renamed = await statusHost({ feed: json({ data: capturedFeed().incidents }) });
    expect((await fetchStatusIncidents(testFetcher(), feedConfig(renamed), at)).check).toMatchObject({
      ok: false,
      detail: { code: 'schema_mismatch', params: { path: 'incidents' } },
    });
    await renamed.close();
    // Every incident of another shape (a renamed field): the feed's shape changed, not one record.
    const reshaped = capturedFeed().incidents.map(({ name, ...rest }) => ({ ...rest, title: name }));
    const s3 = await statusHost({ feed: json({ incidents: reshaped }) });
    expect((await fetchStatusIncidents(testFetcher(), feedConfig(s3), at)).check).toMatchObject({
      ok: false,
      detail: { code: 'schema_mismatch', params: { path: 'incidents[0].name' } },
    });
    await s3.close();
    const silent = await statusHost({ summary: json(capture(OPERATIONAL)), feed: 'silent' });
    const results = await fetchAllSources(
      [pageConfig(silent), feedConfig(silent)],
      testFetcher({ timeoutMs: 300, retries: 0 }),
      at,
    );
    expect(results.map((r) => [r.check.source, r.check.ok, r.check.detail.code])).toEqual([
      ['status-page', true, 'ok'],
      ['status-incidents', false, 'timeout'],
    ]);
  });
});

describe('the incident feed is hostile input too', () => {
  const at = AT_0925;

  it('one malformed incident is counted, the rest are read', async () => {
    const feed = { incidents: [issuesWithCodex(), { id: 7, name: null }, ...capturedFeed().incidents] };
    const s = await statusHost({ feed: json(feed) });
    const r = await fetchStatusIncidents(testFetcher(), feedConfig(s), at);
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 6,
      detail: { code: 'ok_with_rejections', params: { rejected: 1, reasons: 'invalid_record 1' } },
    });
    expect(r.signals!.map((x) => x.title)).toEqual(['Issues with Codex']);
  });

  it('refuses zone-less, far-future and pre-era times, and an undated incident, counting each', async () => {
    const feed = {
      incidents: [issuesWithCodex(), issuesWithCodex(), issuesWithCodex(), issuesWithCodex(), issuesWithCodex()],
    };
    const times = [
      '2026-09-25T22:58:00',
      '9999-12-31T00:00:00Z',
      '2001-01-01T00:00:00Z',
      '',
      '2026-09-25T22:58:00+02:00',
    ];
    feed.incidents.forEach((i, n) => {
      i.id = `${i.id.slice(0, 25)}${n}`;
      i.published_at = times[n]!;
    });
    const s = await statusHost({ feed: json(feed) });
    const r = await fetchStatusIncidents(testFetcher(), feedConfig(s), at);
    expect(r.check.detail).toEqual({
      code: 'ok_with_rejections',
      params: { rejected: 4, reasons: 'bad_date 1, no_timezone 1, future_date 1, before_era 1' },
    });
    // +02:00 is 20:58Z: read in its own zone, never the machine's.
    expect(r.signals!.map((x) => x.published_at)).toEqual(['2026-09-25T20:58:00Z']);
  });

  it('cleans words, builds no link from an id that is not one, and prints no more of the source URL than scheme and host', async () => {
    const i = issuesWithCodex();
    i.id = '../../evil?x=1';
    i.name = `<img src=x onerror=alert(1)>Issues with <b>Codex</b>\u202E ${'!'.repeat(500)}`;
    i.updates[0]!.message_string = `<script>alert(1)</script>Investigating\u0000 ${'more '.repeat(400)}`;
    const s = await statusHost({ feed: json({ incidents: [i, issuesWithCodex()] }) });
    const secretUrl = `${s.url.replace('http://', 'http://user:pw-secret@')}${FEED_PATH}?token=tok-secret`;
    const r = await fetchStatusIncidents(
      testFetcher(),
      { id: 'status-incidents', kind: 'status_incidents', url: secretUrl },
      at,
    );
    const [sig, linked] = r.signals!.map((x) => SignalSchema.parse(x));
    expect(sig!.url).toBeNull();
    expect(sig!.id).toMatch(/^status-incident-[a-z0-9._-]+-[0-9a-f]{8}$/);
    expect(sig!.title.startsWith('Issues with Codex')).toBe(true);
    expect(sig!.title.length).toBeLessThanOrEqual(300);
    expect(sig!.excerpt.startsWith('Investigating more')).toBe(true);
    expect(sig!.excerpt.length).toBeLessThanOrEqual(1000);
    expect(JSON.stringify(r)).not.toMatch(/<|\u202E|\u0000|pw-secret|tok-secret|evil\?/);
    expect(r.check.url).toBe(`${s.url}/…`);
    // A linkable id gets the page's incident page, on the feed's scheme and host only.
    expect(linked!.url).toBe(`${s.url}/incidents/${ISSUES_WITH_CODEX_ID}`);
  });

  it('caps incidents and updates, counting what it did not read', async () => {
    const many = Array.from({ length: MAX_FEED_INCIDENTS + 20 }, (_, n) => ({
      ...issuesWithCodex(),
      id: `01M5X0RECNSTRVCTEDC0DE${String(n).padStart(4, '0')}`,
    }));
    many[0]!.updates = Array.from({ length: MAX_INCIDENT_UPDATES + 5 }, (_, n) => ({
      ...issuesWithCodex().updates[0]!,
      message_string: `update ${n}`,
    }));
    const s = await statusHost({ feed: json({ incidents: many }) });
    const r = await fetchStatusIncidents(testFetcher(), feedConfig(s), at);
    expect(r.check).toMatchObject({
      ok: true,
      items_read: MAX_FEED_INCIDENTS,
      detail: { code: 'ok_with_rejections', params: { rejected: 25, reasons: 'over_item_cap 25' } },
    });
    expect(r.signals).toHaveLength(MAX_FEED_INCIDENTS);
  });

  it('refuses a body nested too deep or with too long a list, as a failed check', async () => {
    const s = await statusHost({ feed: json(`${'['.repeat(10_000)}${']'.repeat(10_000)}`) });
    expect((await fetchStatusIncidents(testFetcher(), feedConfig(s), at)).check).toMatchObject({
      ok: false,
      detail: { code: 'too_deeply_nested', params: { max: 16 } },
    });
    await s.close();
    const s2 = await statusHost({ feed: json({ incidents: Array.from({ length: 6_000 }, () => 0) }) });
    expect((await fetchStatusIncidents(testFetcher(), feedConfig(s2), at)).check).toMatchObject({
      ok: false,
      detail: { code: 'too_many_items', params: { max: 5000 } },
    });
  });
});
