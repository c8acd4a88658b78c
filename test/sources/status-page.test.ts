import { formatInstant } from '../../builder/contract.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { applySourceResults } from '../../builder/model/apply.ts';
import { emptyState, SignalSchema, UpstreamStatusSchema, type State } from '../../builder/model/schemas.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { fetchStatusPage } from '../../builder/sources/status-page.ts';
import { AS_OF, fixture, refusedUrl, sendJson, startServer, testFetcher, type TestServer } from './helpers.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const config = (url: string): SourceConfig => ({ id: 'status-page', kind: 'status_page', url });

async function serve(body: string, status = 200): Promise<SourceConfig> {
  server = await startServer((_req, res) => sendJson(res, body, status));
  return config(`${server.url}/api/v2/summary.json`);
}

/** State holding good data from an earlier run, to prove a failure never wipes it. */
async function goodState(): Promise<State> {
  const s = await startServer((_req, res) => sendJson(res, fixture('statuspage-v2-summary.json')));
  try {
    const r = await fetchStatusPage(testFetcher(), config(s.url), new Date(AS_OF.getTime() - 900_000));
    return applySourceResults(emptyState(), [r], [], new Date(AS_OF.getTime() - 900_000));
  } finally {
    await s.close();
  }
}

describe('fetchStatusPage', () => {
  it('reads an Atlassian Statuspage v2 summary: Codex components, upstream words, Codex incidents as signals', async () => {
    const r = await fetchStatusPage(testFetcher(), await serve(fixture('statuspage-v2-summary.json')), AS_OF);
    expect(r.check).toMatchObject({
      source: 'status-page',
      kind: 'status_page',
      ok: true,
      http_status: 200,
      items_read: 5,
      detail: { code: 'ok', params: {} },
      checked_at: formatInstant(AS_OF),
    });
    expect(r.check.latency_ms).not.toBeNull();
    expect(UpstreamStatusSchema.parse(r.status)).toEqual({
      page_url: 'https://status.example.test/',
      indicator: 'minor',
      description: 'Partially Degraded Service',
      // The page's own time, written with a -08:00 offset, as the UTC instant it names.
      updated_at: '2026-11-21T11:52:03Z',
      components: [
        { id: 'cmp-codex-web', name: 'Codex Web', status: 'degraded_performance' },
        { id: 'cmp-codex-api', name: 'Codex API', status: 'operational' },
        { id: 'cmp-codex-cli', name: 'Codex CLI', status: 'under_maintenance' },
      ],
      fetched_at: formatInstant(AS_OF),
    });
    const signals = r.signals!.map((s) => SignalSchema.parse(s));
    expect(signals.map((s) => s.id)).toEqual(['status-incident-inc-01', 'status-incident-inc-03']);
    expect(signals[0]).toMatchObject({
      kind: 'status_incident',
      source: 'status-page',
      title: 'Elevated errors for Codex tasks',
      excerpt: 'A fix has been deployed and we are monitoring the results.',
      url: 'https://stspg.example.test/abc1',
      published_at: '2026-11-21T10:00:00Z',
      review: 'awaiting_review',
      promoted_to: null,
    });
    // Named generically, but it affects a Codex component.
    expect(signals[1]).toMatchObject({
      title: 'Degraded performance',
      url: null,
      excerpt: 'identified, impact: major',
    });
  });

  it('reads the incident.io variant without incident lists and keeps unknown component statuses', async () => {
    const r = await fetchStatusPage(testFetcher(), await serve(fixture('statuspage-incidentio-summary.json')), AS_OF);
    expect(r.check).toMatchObject({ ok: true, items_read: 2, detail: { code: 'ok' } });
    expect(r.status).toMatchObject({
      indicator: 'none',
      description: 'All Systems Operational',
      updated_at: '2026-11-21T11:58:40Z',
    });
    expect(r.status!.components).toEqual([
      { id: '01HCOMPCODEXWEB', name: 'Codex Web', status: 'operational' },
      { id: '01HCOMPCODEXVS', name: 'Codex VS Code extension', status: 'full_outage_experimental' },
    ]);
    expect(r.signals!.map((x) => x.title)).not.toContain('Elevated errors for Codex tasks');
  });

  it("chooses Codex components by the configured ids, and counts a Statuspage incident on one of them as Codex's", async () => {
    const summary = JSON.parse(fixture('statuspage-v2-summary.json')) as Record<string, any>;
    summary.components.push({ id: 'cmp-cli', name: 'CLI', status: 'major_outage' });
    summary.incidents[1].components = [{ id: 'cmp-cli', name: 'CLI' }];
    const s = await serve(JSON.stringify(summary));
    const r = await fetchStatusPage(testFetcher(), { ...s, codexComponents: ['cmp-codex-web', 'cmp-cli'] }, AS_OF);
    expect(r.status!.components.map((c) => `${c.name}: ${c.status}`)).toEqual([
      'Codex Web: degraded_performance',
      'CLI: major_outage',
    ]);
    // "Slow image uploads" now affects CLI, a Codex component by id though not by name.
    expect(r.signals!.map((x) => x.title)).toEqual([
      'Elevated errors for Codex tasks',
      'Slow image uploads',
      'Degraded performance',
    ]);
    // With the default list (none of its ids on this page), the names decide: CLI is not known to be Codex's.
    const byName = await fetchStatusPage(testFetcher(), s, AS_OF);
    expect(byName.status!.components.map((c) => c.name)).toEqual(['Codex Web', 'Codex API', 'Codex CLI']);
    expect(byName.signals!.map((x) => x.title)).toEqual(['Elevated errors for Codex tasks', 'Degraded performance']);
  });

  it('reports invalid JSON and keeps the last good status', async () => {
    const state = await goodState();
    const r = await fetchStatusPage(testFetcher(), await serve('{"page": '), AS_OF);
    expect(r.check).toMatchObject({
      ok: false,
      http_status: 200,
      items_read: 0,
      detail: { code: 'invalid_json', params: {} },
    });
    expect(r.check.latency_ms).not.toBeNull();
    expect(r.status).toBeUndefined();
    const next = applySourceResults(state, [r], [], AS_OF);
    expect(next.upstream_status).toEqual(state.upstream_status);
    expect(next.checks.at(-1)).toEqual(r.check);
  });

  it('reports valid JSON of the wrong shape with the path that failed', async () => {
    const state = await goodState();
    const body = JSON.parse(fixture('statuspage-incidentio-summary.json')) as { components: { status: unknown }[] };
    body.components[1]!.status = 3;
    const r = await fetchStatusPage(testFetcher(), await serve(JSON.stringify(body)), AS_OF);
    expect(r.check).toMatchObject({
      ok: false,
      http_status: 200,
      items_read: 0,
      detail: { code: 'schema_mismatch', params: { path: 'components[1].status' } },
    });
    expect(applySourceResults(state, [r], [], AS_OF).upstream_status).toEqual(state.upstream_status);
  });

  it('reports an HTTP failure and keeps the last good status', async () => {
    const state = await goodState();
    const r = await fetchStatusPage(testFetcher({ retries: 1 }), await serve('{"error":"down"}', 503), AS_OF);
    expect(r.check).toMatchObject({
      ok: false,
      http_status: 503,
      items_read: 0,
      detail: { code: 'http_status', params: { status: 503 } },
    });
    expect(server!.requests).toHaveLength(2);
    const next = applySourceResults(state, [r], [], AS_OF);
    expect(next.upstream_status).toEqual(state.upstream_status);
    expect(next.signals).toEqual(state.signals);
  });

  it('refuses the page time and incident times that are far ahead or without a zone, like every source record', async () => {
    for (const [updated, reason] of [
      ['9999-12-31T00:00:00Z', 'future_date'],
      ['9999-12-31', 'no_timezone'],
      ['2026-11-21T11:00:00', 'no_timezone'],
      ['2026-11-21T12:11:00Z', 'future_date'],
      ['2001-01-01T00:00:00Z', 'before_era'],
    ] as const) {
      const summary = JSON.parse(fixture('statuspage-v2-summary.json')) as Record<string, any>;
      summary.page.updated_at = updated;
      const r = await fetchStatusPage(testFetcher(), await serve(JSON.stringify(summary)), AS_OF);
      expect(r.status!.updated_at, updated).toBeNull();
      expect(r.check.detail, updated).toEqual({
        code: 'ok_with_rejections',
        params: { rejected: 1, reasons: `${reason} 1` },
      });
    }
    const summary = JSON.parse(fixture('statuspage-v2-summary.json')) as Record<string, any>;
    summary.incidents[0].started_at = '2026-11-21T10:00:00';
    const r = await fetchStatusPage(testFetcher(), await serve(JSON.stringify(summary)), AS_OF);
    expect(r.signals!.map((s) => s.id)).toEqual(['status-incident-inc-03']);
    expect(r.check.detail).toEqual({ code: 'ok_with_rejections', params: { rejected: 1, reasons: 'no_timezone 1' } });
  });

  it('reports a refused connection', async () => {
    const r = await fetchStatusPage(testFetcher({ retries: 0 }), config(await refusedUrl()), AS_OF);
    expect(r.check).toMatchObject({ ok: false, http_status: null, detail: { code: 'connection_refused' } });
    expect(r.check.latency_ms).not.toBeNull();
  });

  it('cleans and caps the upstream words, refuses a javascript: page link and far-future incidents, counting both', async () => {
    const summary = JSON.parse(fixture('statuspage-v2-summary.json')) as Record<string, any>;
    summary.page.url = 'javascript:alert(1)';
    summary.status.description = `<script>x()</script><b>Degraded</b>\u0000 ${'very '.repeat(200)}`;
    summary.components[1].name = `Codex Web <img src=x onerror=alert(1)>${'!'.repeat(500)}`;
    summary.incidents[0].started_at = '9999-12-31T00:00:00Z';
    const r = await fetchStatusPage(testFetcher(), await serve(JSON.stringify(summary)), AS_OF);
    expect(r.check).toMatchObject({
      ok: true,
      detail: { code: 'ok_with_rejections', params: { rejected: 2, reasons: 'bad_url 1, future_date 1' } },
    });
    expect(r.status!.updated_at).toBe('2026-11-21T11:52:03Z');
    expect(r.status!.page_url).toBe('');
    expect(r.status!.description.startsWith('Degraded very')).toBe(true);
    expect(r.status!.description.length).toBeLessThanOrEqual(300);
    expect(r.status!.components[0]!.name.length).toBeLessThanOrEqual(120);
    expect(JSON.stringify(r.status)).not.toMatch(/<|javascript:/);
    expect(r.signals!.map((x) => x.title)).not.toContain('Elevated errors for Codex tasks');
  });

  it('refuses a body nested too deep or with too long a list, as a failed check', async () => {
    const deep = await fetchStatusPage(
      testFetcher(),
      await serve(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      AS_OF,
    );
    expect(deep.check).toMatchObject({ ok: false, detail: { code: 'too_deeply_nested', params: { max: 16 } } });
    await server!.close();
    const summary = JSON.parse(fixture('statuspage-v2-summary.json')) as Record<string, any>;
    summary.components = Array.from({ length: 6_000 }, (_, i) => ({ id: `c${i}`, name: 'x', status: 'operational' }));
    const long = await fetchStatusPage(testFetcher(), await serve(JSON.stringify(summary)), AS_OF);
    expect(long.check).toMatchObject({ ok: false, detail: { code: 'too_many_items', params: { max: 5000 } } });
  });
});
