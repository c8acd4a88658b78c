import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_ID_PATTERN } from '../../builder/contract.ts';
import { applySourceResults } from '../../builder/model/apply.ts';
import { mergeEvents } from '../../builder/model/events.ts';
import { emptyState, EventSchema, type Event, type State } from '../../builder/model/schemas.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { fetchResetTracker } from '../../builder/sources/reset-tracker.ts';
import { AS_OF, fixture, sendJson, startServer, testFetcher, type TestServer } from './helpers.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const config = (base: string): SourceConfig => ({
  id: 'reset-tracker',
  kind: 'reset_tracker',
  url: `${base}/api/v1/resets`,
});

async function serveTwoPages(): Promise<SourceConfig> {
  server = await startServer((req, res) => {
    const cursor = new URL(req.url ?? '/', 'http://x').searchParams.get('cursor');
    sendJson(res, fixture(cursor === 'c2' ? 'tracker-page-2.json' : 'tracker-page-1.json'));
  });
  return config(server.url);
}

const oldEvent: Event = EventSchema.parse({
  id: 'sr-rst_2026-01-05',
  type: 'global_reset',
  status: 'archived',
  reason: 'other',
  origin: 'service_resets',
  time_precision: 'second',
  time_basis: 'announcement',
  announced_at: '2026-01-05T10:00:00Z',
  observed_at: null,
  effective_at: null,
  evidence_text: 'An older reset.',
  sources: [{ platform: 'X', url: 'https://x.com/example_dev/status/1870000000000000000' }],
});

function stateWithOldEvent(): State {
  return { ...emptyState(), upstream_events: [oldEvent] };
}

describe('fetchResetTracker', () => {
  it('follows the cursor across pages and maps records to archived service_resets events', async () => {
    const r = await fetchResetTracker(testFetcher(), await serveTwoPages(), AS_OF, { pageLimit: 2 });
    expect(server!.requests.map((q) => q.path)).toEqual(['/api/v1/resets?limit=2', '/api/v1/resets?limit=2&cursor=c2']);
    expect(r.check).toMatchObject({ ok: true, http_status: 200, items_read: 4, detail: { code: 'ok', params: {} } });
    expect(r.check.latency_ms).not.toBeNull();
    const events = r.events!;
    // The `boost` record is a type the API does not define: skipped, not a failure.
    expect(events.map((e) => e.id)).toEqual([
      'sr-rst_2026-11-20_a',
      'sr-rst-2026-11-18-banked-c385b3af',
      'sr-rst_2026-11-02',
    ]);
    for (const e of events) {
      expect(EventSchema.parse(e)).toEqual(e);
      expect(e.id).toMatch(EVENT_ID_PATTERN);
      expect(e).toMatchObject({
        status: 'archived',
        origin: 'service_resets',
        reason: 'other',
        effective_at: null,
        same_as: [],
      });
      expect(e.title).toBeUndefined();
      expect(e.summary).toBeUndefined();
    }
    expect(events[0]).toMatchObject({
      type: 'global_reset',
      time_basis: 'announcement',
      time_precision: 'second',
      announced_at: '2026-11-20T18:02:11Z',
      observed_at: null,
      evidence_text:
        "We just reset Codex rate limits for everyone. Thanks for bearing with us during today's slowdown!",
      sources: [{ platform: 'X', url: 'https://x.com/example_dev/status/2123839334380470273', author: 'example_dev' }],
    });
    expect(events[1]).toMatchObject({
      type: 'banked_grant',
      announced_at: '2026-11-18T08:15:00Z',
      sources: [{ platform: 'X', url: 'https://twitter.com/example_dev/status/2122966789125046274' }],
    });
    expect(events[1]!.sources[0]).not.toHaveProperty('author');
    expect(events[2]).toMatchObject({
      type: 'global_reset',
      time_basis: 'observation',
      announced_at: null,
      observed_at: '2026-11-02T07:40:00Z',
      sources: [{ platform: 'web', url: 'https://community.example.test/t/limits-reset/42' }],
    });
  });

  it('adds a complete read to the stored tracker events, keeping one the tracker no longer lists', async () => {
    const r = await fetchResetTracker(testFetcher(), await serveTwoPages(), AS_OF, { pageLimit: 2 });
    const next = applySourceResults(stateWithOldEvent(), [r], [], AS_OF);
    // `RST 2026/11/18 banked` is not in our id alphabet: sanitised, plus a hash of the exact id (stableIdPart).
    expect(next.upstream_events.map((e) => e.id)).toEqual([
      'sr-rst_2026-11-20_a',
      'sr-rst-2026-11-18-banked-c385b3af',
      'sr-rst_2026-11-02',
      'sr-rst_2026-01-05',
    ]);
  });

  it('stops a cursor that never ends at the page cap: ok with partial data, merged into what was stored', async () => {
    server = await startServer((req, res) => {
      const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('cursor') ?? 0);
      const page = JSON.parse(fixture('tracker-page-1.json')) as { data: { id: string }[]; pagination: object };
      page.data = page.data.slice(0, 1).map((d) => ({ ...d, id: `rst-page-${n}` }));
      page.pagination = { has_more: true, next_cursor: String(n + 1) };
      sendJson(res, page);
    });
    const r = await fetchResetTracker(testFetcher(), config(server.url), AS_OF, { maxPages: 3 });
    expect(server.requests).toHaveLength(3);
    expect(r.check).toMatchObject({
      ok: true,
      http_status: 200,
      items_read: 3,
      detail: { code: 'page_cap_reached', params: { pages: 3 } },
    });
    expect(r.check.latency_ms).not.toBeNull();
    // Distinct records on every page: all kept (same post url is fine for the tracker itself).
    expect(r.events!.map((e) => e.id)).toEqual(['sr-rst-page-0', 'sr-rst-page-1', 'sr-rst-page-2']);
    const next = applySourceResults(stateWithOldEvent(), [r], [], AS_OF);
    expect(next.upstream_events.map((e) => e.id).sort()).toEqual([
      'sr-rst-page-0',
      'sr-rst-page-1',
      'sr-rst-page-2',
      'sr-rst_2026-01-05',
    ]);
  });

  it('stops when the cursor repeats', async () => {
    server = await startServer((_req, res) => {
      const page = JSON.parse(fixture('tracker-page-1.json')) as { pagination: object };
      page.pagination = { has_more: true, next_cursor: 'same' };
      sendJson(res, page);
    });
    const r = await fetchResetTracker(testFetcher(), config(server.url), AS_OF);
    expect(server.requests).toHaveLength(2);
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 4,
      detail: { code: 'cursor_repeated', params: { pages: 2 } },
    });
    expect(r.events).toHaveLength(2);
  });

  it('fails the whole check when a later page fails, keeping stored events', async () => {
    server = await startServer((req, res) => {
      if (req.url?.includes('cursor=')) sendJson(res, 'oops', 500);
      else sendJson(res, fixture('tracker-page-1.json'));
    });
    const r = await fetchResetTracker(testFetcher({ retries: 1 }), config(server.url), AS_OF);
    expect(r.check).toMatchObject({
      ok: false,
      http_status: 500,
      items_read: 0,
      detail: { code: 'http_status', params: { status: 500 } },
    });
    expect(r.events).toBeUndefined();
    expect(server.requests).toHaveLength(3);
    expect(applySourceResults(stateWithOldEvent(), [r], [], AS_OF).upstream_events).toEqual([oldEvent]);
  });

  it('reports invalid JSON and a wrong shape, keeping stored events', async () => {
    server = await startServer((req, res) => {
      if (req.url?.startsWith('/bad-json')) sendJson(res, '<html>not json</html>');
      else {
        const page = JSON.parse(fixture('tracker-page-1.json')) as { data: { announced_at: string }[] };
        for (const d of page.data) d.announced_at = 'yesterday';
        sendJson(res, page);
      }
    });
    const bad = await fetchResetTracker(testFetcher(), { ...config(server.url), url: `${server.url}/bad-json` }, AS_OF);
    expect(bad.check).toMatchObject({ ok: false, http_status: 200, detail: { code: 'invalid_json', params: {} } });
    const shape = await fetchResetTracker(testFetcher(), config(server.url), AS_OF);
    expect(shape.check).toMatchObject({
      ok: false,
      http_status: 200,
      detail: { code: 'schema_mismatch', params: { path: 'data[0].announced_at (bad_date)' } },
    });
    expect(shape.check.latency_ms).not.toBeNull();
    const next = applySourceResults(stateWithOldEvent(), [bad, shape], [], AS_OF);
    expect(next.upstream_events).toEqual([oldEvent]);
    expect(next.checks.map((c) => c.detail.code)).toEqual(['invalid_json', 'schema_mismatch']);
  });

  it('refuses a record dated without a zone (no_timezone), and fails a page of nothing else as a broken source', async () => {
    server = await startServer((req, res) => {
      const page = JSON.parse(fixture('tracker-page-2.json')) as { data: Record<string, unknown>[] };
      const base = page.data[0]!;
      const zoneless = [
        { ...base, id: 'no-zone', announced_at: '2026-11-21T08:00:00' },
        { ...base, id: 'date-only', announced_at: '2026-11-20' },
      ];
      page.data = req.url?.includes('only') ? zoneless : [{ ...base, id: 'ok-1' }, ...zoneless];
      sendJson(res, page);
    });
    const mixed = await fetchResetTracker(testFetcher(), config(server.url), AS_OF);
    expect(mixed.check).toMatchObject({
      ok: true,
      items_read: 1,
      detail: { code: 'ok_with_rejections', params: { rejected: 2, reasons: 'no_timezone 2' } },
    });
    expect(mixed.events!.map((e) => e.id)).toEqual(['sr-ok-1']);
    const only = await fetchResetTracker(
      testFetcher(),
      { ...config(server.url), url: `${server.url}/only/api/v1/resets` },
      AS_OF,
    );
    expect(only.check).toMatchObject({
      ok: false,
      detail: { code: 'schema_mismatch', params: { path: 'data[0].announced_at (no_timezone)' } },
    });
    expect(only.events).toBeUndefined();
  });

  it('rejects single bad records (shape, link, date) and counts each reason in the check', async () => {
    server = await startServer((_req, res) => {
      const page = JSON.parse(fixture('tracker-page-2.json')) as {
        data: Record<string, unknown>[];
        pagination: object;
      };
      const base = page.data[0]!;
      const rec = (id: string, patch: Record<string, unknown>) => ({ ...base, id, ...patch });
      page.data = [
        rec('ok-1', {}),
        rec('bad-shape', { announced_at: 'yesterday' }),
        rec('far-future', { announced_at: '9999-12-31T00:00:00Z' }),
        rec('before-era', { announced_at: '2001-01-01T00:00:00Z' }),
        rec('js-link', { source: { type: 'observed', url: 'javascript:alert(1)' } }),
        rec('no-host', { source: { type: 'observed', url: 'https:' } }),
        // Not a type of ours, however it is named: skipped, as any unknown type is, not rejected.
        rec('proto-type', { reset_type: 'constructor' }),
        rec('proto-type-2', { reset_type: '__proto__' }),
      ];
      sendJson(res, page);
    });
    const r = await fetchResetTracker(testFetcher(), config(server.url), AS_OF);
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 3,
      detail: {
        code: 'ok_with_rejections',
        params: { rejected: 5, reasons: 'bad_url 2, bad_date 1, future_date 1, before_era 1' },
      },
    });
    expect(r.events!.map((e) => e.id)).toEqual(['sr-ok-1']);
  });

  it('never takes a far-future time from a crafted X post id: the record keeps its own time, the post time is counted', async () => {
    server = await startServer((_req, res) => {
      const page = JSON.parse(fixture('tracker-page-2.json')) as { data: Record<string, unknown>[] };
      page.data = [
        {
          ...page.data[0]!,
          id: 'crafted',
          announced_at: '2026-11-21T09:00:00Z',
          source: { type: 'x_post', url: 'https://x.com/a/status/99999999999999999999' },
        },
      ];
      sendJson(res, page);
    });
    const r = await fetchResetTracker(testFetcher(), config(server.url), AS_OF);
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 1,
      detail: { code: 'ok_with_rejections', params: { rejected: 1, reasons: 'future_date 1' } },
    });
    expect(r.events![0]).toMatchObject({
      announced_at: '2026-11-21T09:00:00Z',
      observed_at: null,
      time_basis: 'announcement',
    });
  });

  it('takes at most the record cap per run, newest first, counting the rest: a partial read', async () => {
    server = await startServer((req, res) => {
      const cursor = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('cursor') ?? 0);
      const page = JSON.parse(fixture('tracker-page-2.json')) as {
        data: Record<string, unknown>[];
        pagination: object;
      };
      page.data = Array.from({ length: 30 }, (_, i) => ({ ...page.data[0]!, id: `p${cursor}-r${i}` }));
      page.pagination = { has_more: true, next_cursor: String(cursor + 1) };
      sendJson(res, page);
    });
    const r = await fetchResetTracker(testFetcher(), config(server.url), AS_OF, { maxRecords: 50 });
    expect(server.requests).toHaveLength(2);
    expect(r.events).toHaveLength(50);
    expect(r.check).toMatchObject({
      ok: true,
      detail: { code: 'record_cap_reached', params: { max: 50, rejected: 10, reasons: 'over_record_cap 10' } },
    });
  });

  it('keeps the upstream words (markup tags and control characters removed), truncating only to the schema maximum', async () => {
    const long = `  Reset!\u0007 <b>now</b>\n${'é'.repeat(5000)}`;
    server = await startServer((_req, res) => {
      const page = JSON.parse(fixture('tracker-page-2.json')) as { data: { text: string }[] };
      page.data[0]!.text = long;
      sendJson(res, page);
    });
    const r = await fetchResetTracker(testFetcher(), config(server.url), AS_OF);
    expect(r.events![0]!.evidence_text).toBe(`Reset!  now \n${'é'.repeat(5000)}`.slice(0, 4000));
  });
});

describe('tracker records merged with the curated archive', () => {
  const ledger: Event = EventSchema.parse({
    id: 'ledger-2026-11-20-1802',
    type: 'global_reset',
    status: 'archived',
    reason: 'incident',
    origin: 'ledger',
    time_precision: 'second',
    time_basis: 'announcement',
    announced_at: '2026-11-20T18:02:11Z',
    observed_at: null,
    effective_at: null,
    evidence_text: "We just reset Codex rate limits for everyone. Thanks for bearing with us during today's slowdown!",
    sources: [
      { platform: 'X', url: 'https://twitter.com/example_dev/status/2123839334380470273/', author: 'example_dev' },
    ],
  });
  const verified: Event = EventSchema.parse({
    id: 'reset-2026-11-20',
    type: 'global_reset',
    status: 'verified',
    reason: 'incident',
    origin: 'curated',
    time_precision: 'minute',
    time_basis: 'effective',
    announced_at: '2026-11-20T18:02:00Z',
    observed_at: null,
    effective_at: '2026-11-20T18:10:00Z',
    title: {
      en: 'Global reset after the slowdown',
      de: 'Globaler Reset nach der Verlangsamung',
      ja: '速度低下後のグローバルリセット',
    },
    author_notes: { en: 'Announced by a staff engineer.' },
    verification_notes: { en: 'Checked on two accounts.', de: 'An zwei Konten geprüft.' },
    evidence_text: "We just reset Codex rate limits for everyone. Thanks for bearing with us during today's slowdown!",
    sources: [{ platform: 'X', url: 'https://x.com/example_dev/status/2123839334380470273' }],
    same_as: ['ledger-2026-11-20-1802'],
  });

  it('merges a tracker record citing the same X post as a ledger record into one event', async () => {
    const r = await fetchResetTracker(testFetcher(), await serveTwoPages(), AS_OF, { pageLimit: 2 });
    const merged = mergeEvents([ledger], r.events!);
    const sameDay = merged.filter((e) => e.announced_at?.startsWith('2026-11-20'));
    expect(sameDay).toHaveLength(1);
    expect(sameDay[0]).toMatchObject({
      id: 'ledger-2026-11-20-1802',
      origin: 'ledger',
      same_as: ['sr-rst_2026-11-20_a'],
    });
    expect(merged).toHaveLength(3);
  });

  it('lets a verified record win over ledger and tracker, keeping its translations', async () => {
    const r = await fetchResetTracker(testFetcher(), await serveTwoPages(), AS_OF, { pageLimit: 2 });
    const merged = mergeEvents([ledger, verified], r.events!);
    const winner = merged.find((e) => e.same_as.includes('sr-rst_2026-11-20_a'))!;
    expect(winner.id).toBe('reset-2026-11-20');
    expect(winner.status).toBe('verified');
    expect(winner.title).toEqual(verified.title);
    expect(winner.verification_notes).toEqual(verified.verification_notes);
    expect(winner.same_as).toEqual(['ledger-2026-11-20-1802', 'sr-rst_2026-11-20_a']);
    expect(merged.filter((e) => e.id.startsWith('sr-rst_2026-11-20') || e.id.startsWith('ledger-2026-11-20'))).toEqual(
      [],
    );
  });
});
