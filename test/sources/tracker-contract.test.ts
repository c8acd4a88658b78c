// The tracker's documented looseness, and its limits: an `observed` source may have no url and no author, and `text`
// may be empty (codex-resets.com's documentation; the 2026-09-29 capture's active_watch.source is `{"type":"observed"}`),
// while an `x_post` always cites its post. `/api/v1/status` is read part by part; `stats.total` is checked against the
// records `/resets` listed; `latest_reset` shows a new reset before `/resets` lists it.
import { afterEach, describe, expect, it } from 'vitest';
import { applySourceResults } from '../../builder/model/apply.ts';
import { emptyState } from '../../builder/model/schemas.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { compareTrackerTotal, fetchAllSources } from '../../builder/sources/index.ts';
import { fetchResetTracker } from '../../builder/sources/reset-tracker.ts';
import { fetchTrackerStatus } from '../../builder/sources/tracker-status.ts';
import { userAgentFromEnv } from '../../builder/net/user-agent.ts';
import { AS_OF, sendJson, startServer, testFetcher, type TestServer } from './helpers.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const page = (data: unknown[]) => ({
  data,
  pagination: { has_more: false, next_cursor: null },
  meta: { api_version: 'v1', generated_at: '2026-11-21T11:59:00Z' },
});
const record = (id: string, patch: Record<string, unknown> = {}) => ({
  id,
  reset_type: 'regular',
  announced_at: '2026-11-21T10:00:00.000Z',
  text: 'Reset for everyone.',
  source: { type: 'x_post', author: 'someone', url: 'https://x.com/someone/status/1991234567890123456' },
  ...patch,
});

async function serve(routes: Record<string, unknown>): Promise<string> {
  server = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path in routes) sendJson(res, routes[path] as object);
    else sendJson(res, { error: 'not found' }, 404);
  });
  return server.url;
}

describe('tracker records as the service documents them', () => {
  it('keeps an observed record without url or author, publishing no link, and counts it', async () => {
    const base = await serve({ '/api/v1/resets': page([record('observed-1', { source: { type: 'observed' } })]) });
    const r = await fetchResetTracker(
      testFetcher(),
      { id: 'reset-tracker', kind: 'reset_tracker', url: `${base}/api/v1/resets` },
      AS_OF,
    );
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 1,
      detail: { code: 'ok_with_notes', params: { noted: 'no_link 1' } },
    });
    expect(r.events).toEqual([
      expect.objectContaining({
        id: 'sr-observed-1',
        sources: [],
        time_basis: 'observation',
        observed_at: '2026-11-21T10:00:00Z',
      }),
    ]);
  });

  it('keeps a record with empty text and counts it; refuses an x_post without its link', async () => {
    const base = await serve({
      '/api/v1/resets': page([
        record('empty', { text: '' }),
        record('no-link', { source: { type: 'x_post', author: 'a' } }),
      ]),
    });
    const r = await fetchResetTracker(
      testFetcher(),
      { id: 'reset-tracker', kind: 'reset_tracker', url: `${base}/api/v1/resets` },
      AS_OF,
    );
    expect(r.check).toMatchObject({
      ok: true,
      items_read: 1,
      detail: { code: 'ok_with_rejections', params: { rejected: 1, reasons: 'bad_url 1', noted: 'empty_text 1' } },
    });
    expect(r.events).toEqual([expect.objectContaining({ id: 'sr-empty', evidence_text: '' })]);
  });
});

describe('/api/v1/status, part by part', () => {
  it('names each malformed part in the detail and uses the others', async () => {
    const base = await serve({
      '/api/v1/status': {
        data: {
          latest_reset: record('newest'),
          scheduled_reset: {
            id: 'x',
            status: 'scheduled',
            announced_at: 'soon',
            text: 'x',
            source: { type: 'observed' },
          },
          active_watch: {
            level: 'strong',
            observed_at: '2026-11-21T09:00:00Z',
            expires_at: '2026-11-22T00:00:00Z',
            forecast_window: 'this weekend',
            source: { type: 'observed' },
          },
          stats: { total: 'many' },
        },
      },
    });
    const r = await fetchTrackerStatus(
      testFetcher(),
      { id: 'tracker-status', kind: 'tracker_status', url: `${base}/api/v1/status` },
      AS_OF,
    );
    expect(r.check).toMatchObject({
      ok: true,
      detail: {
        code: 'ok_with_unreadable_parts',
        params: { parts: 'scheduled_reset.announced_at (bad_date), stats.total (invalid_record)' },
      },
    });
    expect(r.events).toEqual([expect.objectContaining({ id: 'sr-newest' })]);
    expect(r.announcement).toBeUndefined();
    expect(r.watch).toMatchObject({ level: 'strong', forecast_window: 'this weekend', source_url: null });
    expect(r.stats_total).toBeUndefined();
  });

  it('refuses a watch that claims to outlast a month or carries a bad link, naming it', async () => {
    const watch = {
      level: 'elevated',
      observed_at: '2026-11-21T09:00:00Z',
      expires_at: '2027-11-22T00:00:00Z',
      forecast_window: 'w',
      source: { type: 'observed' },
    };
    const base = await serve({ '/api/v1/status': { data: { active_watch: watch } } });
    const r = await fetchTrackerStatus(
      testFetcher(),
      { id: 'tracker-status', kind: 'tracker_status', url: `${base}/api/v1/status` },
      AS_OF,
    );
    expect(r.check.detail).toEqual({
      code: 'ok_with_unreadable_parts',
      params: { parts: 'active_watch.expires_at (future_date)' },
    });
    expect(r.watch).toBeUndefined();
  });

  it("cleans and caps the watch's words as every upstream text, and refuses a level that is not a plain word", async () => {
    const hostile = {
      level: 'Strong',
      reset_chance_percent: 40,
      observed_at: '2026-11-21T09:00:00Z',
      expires_at: null,
      forecast_window: `<b>this\u0000 weekend</b>\u202e${'x'.repeat(5000)}`,
      text: `\u001b]0;PWNED\u0007${'y'.repeat(5000)}`,
      source: { type: 'observed', url: 'https://user:secret@tracker.example/w' },
    };
    const base = await serve({ '/api/v1/status': { data: { active_watch: hostile } } });
    const cfg: SourceConfig = { id: 'tracker-status', kind: 'tracker_status', url: `${base}/api/v1/status` };
    const r = await fetchTrackerStatus(testFetcher(), cfg, AS_OF);
    // A link with credentials is no link of a record: the watch is refused, named.
    expect(r.check.detail).toEqual({
      code: 'ok_with_unreadable_parts',
      params: { parts: 'active_watch.source.url (bad_url)' },
    });
    await server!.close();
    server = null;
    const base2 = await serve({
      '/api/v1/status': { data: { active_watch: { ...hostile, source: { type: 'observed' } } } },
    });
    const w = (await fetchTrackerStatus(testFetcher(), { ...cfg, url: `${base2}/api/v1/status` }, AS_OF)).watch!;
    expect(w.level).toBe('strong');
    expect(w.forecast_window.length).toBeLessThanOrEqual(300);
    expect(w.text.length).toBeLessThanOrEqual(1000);
    expect(`${w.forecast_window}${w.text}`).not.toMatch(/[\u0000-\u0008\u001b\u007f\u202e]|<b>/);
    await server!.close();
    server = null;
    const base3 = await serve({ '/api/v1/status': { data: { active_watch: { ...hostile, level: 'strong; DROP' } } } });
    const bad = await fetchTrackerStatus(testFetcher(), { ...cfg, url: `${base3}/api/v1/status` }, AS_OF);
    expect(bad.check.detail).toEqual({
      code: 'ok_with_unreadable_parts',
      params: { parts: 'active_watch.level (invalid_record)' },
    });
  });

  it('shows a reset from latest_reset in the same run, before /resets lists it, and keeps every watch seen', async () => {
    const watch = {
      level: 'strong',
      observed_at: '2026-11-21T09:00:00Z',
      expires_at: null,
      forecast_window: 'today',
      text: 'Expect one.',
      source: { type: 'observed' },
    };
    const base = await serve({
      '/api/v1/resets': page([record('older', { announced_at: '2026-11-20T10:00:00Z' })]),
      '/api/v1/status': { data: { latest_reset: record('newest'), active_watch: watch, stats: { total: 1 } } },
    });
    const configs: SourceConfig[] = [
      { id: 'reset-tracker', kind: 'reset_tracker', url: `${base}/api/v1/resets` },
      { id: 'tracker-status', kind: 'tracker_status', url: `${base}/api/v1/status` },
    ];
    const results = await fetchAllSources(configs, testFetcher(), AS_OF);
    const state = applySourceResults(emptyState(), results, [], AS_OF);
    expect(state.upstream_events.map((e) => e.id).sort()).toEqual(['sr-newest', 'sr-older']);
    expect(state.tracker_watch).toMatchObject({ level: 'strong', forecast_window: 'today' });
    expect(state.signals).toContainEqual(
      expect.objectContaining({ kind: 'tracker_watch', title: 'strong watch: today', url: null }),
    );
    const later = new Date(AS_OF.getTime() + 15 * 60_000);
    const next = applySourceResults(state, [{ ...results[1]!, watch: null }], [], later);
    expect(next.tracker_watch).toBeNull();
    expect(next.watches).toHaveLength(1);
  });

  it('says so when stats.total differs from the records a complete read listed', () => {
    const check = (kind: 'reset_tracker' | 'tracker_status', items: number, code = 'ok') => ({
      source: kind,
      kind,
      url: 'http://127.0.0.1/',
      ok: true,
      http_status: 200,
      latency_ms: 1,
      items_read: items,
      checked_at: '2026-11-21T12:00:00Z',
      detail: { code, params: {} },
    });
    const differ = compareTrackerTotal([
      { check: check('reset_tracker', 53) },
      { check: check('tracker_status', 1), stats_total: 55 },
    ]);
    expect(differ[1]!.check.detail).toEqual({
      code: 'ok_total_differs',
      params: { stats_total: 55, records_listed: 53 },
    });
    const same = compareTrackerTotal([
      { check: check('reset_tracker', 55) },
      { check: check('tracker_status', 1), stats_total: 55 },
    ]);
    expect(same[1]!.check.detail.code).toBe('ok');
    // A partial read (a page cap) cannot be compared.
    const partial = compareTrackerTotal([
      { check: check('reset_tracker', 53, 'page_cap_reached') },
      { check: check('tracker_status', 1), stats_total: 55 },
    ]);
    expect(partial[1]!.check.detail.code).toBe('ok');
  });
});

describe('the User-Agent', () => {
  it("is Reddit's form, naming the repository the workflow runs in, or a local build; never a placeholder", () => {
    expect(userAgentFromEnv({ GITHUB_REPOSITORY: 'octo/reset-status-api' })).toBe(
      'node:reset-status-api:v0.1.0 (+https://github.com/octo/reset-status-api)',
    );
    expect(
      userAgentFromEnv({
        GITHUB_REPOSITORY: 'octo/r',
        GITHUB_SERVER_URL: 'https://git.example.com/',
        RESET_REDDIT_USER: 'resetbot',
      }),
    ).toBe('node:reset-status-api:v0.1.0 (by /u/resetbot; +https://git.example.com/octo/r)');
    expect(userAgentFromEnv({})).toBe('node:reset-status-api:v0.1.0 (local build)');
    expect(userAgentFromEnv({ RESET_USER_AGENT: 'my-mirror/1.0 (ops@example.com)' })).toBe(
      'my-mirror/1.0 (ops@example.com)',
    );
  });

  it('refuses a value that cannot be a header or is not what its variable names', () => {
    expect(() => userAgentFromEnv({ RESET_USER_AGENT: 'bad\r\nX-Injected: 1' })).toThrow(/RESET_USER_AGENT/);
    expect(() => userAgentFromEnv({ GITHUB_REPOSITORY: 'not a repo' })).toThrow(/GITHUB_REPOSITORY/);
    expect(() => userAgentFromEnv({ RESET_REDDIT_USER: '/u/x' })).toThrow(/RESET_REDDIT_USER/);
  });

  it('is what a source receives', async () => {
    const base = await serve({ '/api/v1/resets': page([]) });
    const { createHttpFetcher } = await import('../../builder/sources/http-fetcher.ts');
    const agent = userAgentFromEnv({ GITHUB_REPOSITORY: 'octo/r' });
    await fetchResetTracker(
      createHttpFetcher({ userAgent: agent, retries: 0 }),
      { id: 'reset-tracker', kind: 'reset_tracker', url: `${base}/api/v1/resets` },
      AS_OF,
    );
    expect(server!.requests[0]!.headers['user-agent']).toBe(agent);
  });
});
