// The real build (builder/main.ts) against what codex-resets.com, status.openai.com and Reddit really answered in
// September 2026 (the captures in test/fixtures/real-upstreams/, served on loopback by replay.ts), at the captures' dates. Every expected answer
// is read from the posts' own words or the services' documentation (test/fixtures/real-upstreams/README.md):
// - post 2076418567143408112, 2026-07-12: "Added a banked reset to 500k users of ChatGPT Work and Codex." and post
//   2076735790567338203, 2026-07-13: "We have added a banked reset to everyone's account": banked grants, although the
//   tracker labels both `regular`;
// - post 2098612714704891959, 2026-09-12T03:20Z: "A reset and a quick update ..." and post 2098685367058612394, 08:09Z:
//   "Reset all propagated.": one reset, which data/tracker-review.json settles as of its review date;
// - post 2103911959544610829, 2026-09-26T18:17Z: "Resets all propagated. That will be all.": the latest global reset on
//   2026-09-29, which no curated record holds;
// - `active_watch` of 2026-09-29 is the tracker's own (level strong, its window as display text, source `{type:
//   observed}` without a link), and `stats.total` 55 matches the 55 records `/resets` lists;
// - a reset announced 2026-09-22T04:31Z for 2026-09-23T06:59Z ("I promised a reset for Tuesday");
// - Reddit answers 403 Blocked to datacenter ranges and 429 when rate limited.
import { describe, expect, it } from 'vitest';
import { build, checks, cites, history, post, REPO, signals, type Check, type EventDoc } from './build.ts';
import { captureJson, issuesWithCodex, SCENARIOS, type FeedIncident, type Scenario } from './replay.ts';

describe('2026-09-29: the tracker on one page, its status with a strong watch', () => {
  it('keeps the two banked grants the tracker labels regular as banked grants, one event per post, and asks a reviewer', async () => {
    const b = await build(SCENARIOS['2026-09-29'], '2026-09-29T16:45:00Z');
    expect(b.code).toBe(0);
    const events = await history(b);
    for (const id of ['2076418567143408112', '2076735790567338203']) {
      const citing = events.filter((e) => cites(e, id));
      expect(citing).toHaveLength(1);
      expect(citing[0]).toMatchObject({ type: 'banked_grant', origin: 'ledger' });
    }
    const open = await signals(b);
    for (const id of ['2076418567143408112', '2076735790567338203']) {
      expect(open).toContainEqual(
        expect.objectContaining({
          kind: 'type_disagreement',
          url: post(id),
          curated_type: 'banked_grant',
          tracker_type: 'global_reset',
        }),
      );
    }
    // No global reset on 2026-07-12 or 2026-07-13: the only records of those days are the banked grants.
    expect(events.filter((e) => e.type === 'global_reset' && /^2026-07-1[23]/.test(e.occurred_at))).toEqual([]);
  });

  it('asks whether 2026-09-12 had one reset or two until the review of 2026-11-27 says one', async () => {
    const before = await build(SCENARIOS['2026-09-29'], '2026-09-29T16:45:00Z');
    const on12 = (events: EventDoc[]) =>
      events.filter((e) => e.type === 'global_reset' && e.occurred_at.startsWith('2026-09-12'));
    expect(on12(await history(before))).toHaveLength(2);
    expect(await signals(before)).toContainEqual(
      expect.objectContaining({ kind: 'same_day_resets', url: post('2098685367058612394') }),
    );
    const after = await build(SCENARIOS['2026-09-29'], '2026-11-27T12:00:00Z');
    const one = on12(await history(after));
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ id: 'ledger-2026-09-12-0320' });
    expect(one[0]!.same_as).toContain('sr-2098685367058612394');
    const settled = await signals(after);
    expect(settled.filter((s) => s.kind === 'same_day_resets' || s.kind === 'type_disagreement')).toEqual([]);
  });

  it('reads all 55 records, the latest reset of 2026-09-26, and the tracker status part by part', async () => {
    const b = await build(SCENARIOS['2026-09-29'], '2026-09-29T16:45:00Z');
    const all = await checks(b);
    expect(all.find((c) => c.kind === 'reset_tracker')).toMatchObject({
      ok: true,
      http_status: 200,
      items_read: 55,
      detail_code: 'ok',
    });
    // stats.total is 55, as many as /resets listed: nothing to say about it.
    expect(all.find((c) => c.kind === 'tracker_status')).toMatchObject({
      ok: true,
      http_status: 200,
      detail_code: 'ok',
    });
    const latest = await b.doc<{ reset: boolean | null; today: { state: string }; latestReset: EventDoc }>(
      'api/en/latest.json',
    );
    expect(latest.latestReset).toMatchObject({
      id: 'sr-2103911959544610829',
      type: 'global_reset',
      occurred_at: '2026-09-26T18:17:54Z',
    });
    expect(latest.today.state).toBe('no_verified_reset');
    expect(latest.reset).toBe(false);
    // The observed record has no author; it cites post 2097174560412246215, which the ledger holds: one event.
    const events = await history(b);
    expect(
      events.filter((e) => cites(e, '2097174560412246215') || e.same_as.includes('sr-observed-2097043464538264003')),
    ).toHaveLength(1);
  });

  it("shows the tracker's watch as the tracker's, with its words, no link, and no effect on our probability", async () => {
    const withWatch = await build(SCENARIOS['2026-09-29'], '2026-09-29T16:45:00Z');
    const f = await withWatch.doc<{
      probability_24h: number | null;
      probability_48h: number | null;
      tracker_watch: Record<string, unknown> | null;
    }>('api/en/forecast.json');
    expect(f.tracker_watch).toMatchObject({
      level: 'strong',
      reset_chance_percent: null,
      forecast_window: 'around OpenAI DevDay 2026 on September 29 (Pacific Time)',
      observed_at: '2026-09-27T10:39:35Z',
      expires_at: '2026-09-30T06:59:59Z',
      source_url: null,
    });
    expect(await signals(withWatch)).toContainEqual(expect.objectContaining({ kind: 'tracker_watch', url: null }));
    const status = captureJson<{ data: Record<string, unknown> }>('codex-resets/v1-status.2026-09-29.captured.json');
    const noWatch = await build(
      { ...SCENARIOS['2026-09-29'], status: { body: { ...status, data: { ...status.data, active_watch: null } } } },
      '2026-09-29T16:45:00Z',
    );
    const g = await noWatch.doc<typeof f>('api/en/forecast.json');
    expect(g.tracker_watch).toBeNull();
    expect([g.probability_24h, g.probability_48h]).toEqual([f.probability_24h, f.probability_48h]);
    // Past its expiry the watch is no longer shown.
    const expired = await build(SCENARIOS['2026-09-29'], '2026-09-30T07:00:00Z');
    expect((await expired.doc<typeof f>('api/en/forecast.json')).tracker_watch).toBeNull();
  });

  it('credits codex-resets.com with a link wherever its data is shown, and sends one User-Agent naming the repository', async () => {
    const b = await build(SCENARIOS['2026-09-29'], '2026-09-29T16:45:00Z');
    const credit = { name: 'codex-resets.com', url: 'https://codex-resets.com/', notice: 'Data: codex-resets.com' };
    for (const rel of [
      'api/en/latest.json',
      'api/de/forecast.json',
      'api/ja/history.json',
      'api/en/events/sr-2103911959544610829.json',
      // A ledger event the tracker also lists shows the tracker's label for it in recorded_by: its data too.
      'api/en/events/ledger-2025-09-17-0402.json',
    ]) {
      expect((await b.doc<{ meta: { credits: unknown[] } }>(rel)).meta.credits).toEqual([credit]);
    }
    // A ledger event no tracker lists shows the ledger's data only; its MIT notice stays.
    const ledgerEvent = await b.doc<{ meta: { credits: unknown[]; license: string } }>(
      'api/en/events/ledger-2026-09-04-2057.json',
    );
    expect(ledgerEvent.meta.credits).toEqual([]);
    expect(ledgerEvent.meta.license).toContain('MIT License');
    expect(await b.text('api/en/index.html')).toContain(
      '<a href="https://codex-resets.com/">Data: codex-resets.com</a>',
    );
    expect(await b.text('api/en/feed.atom')).toContain('https://codex-resets.com/');
    expect(await b.text('api/en/calendar.ics')).toContain('codex-resets.com');
    const agents = new Set(b.replay.requests.map((r) => r.userAgent));
    expect([...agents]).toEqual([`node:reset-status-api:v0.1.0 (+https://github.com/${REPO})`]);
  });
});

describe('the tracker counting otherwise than it lists', () => {
  it('names both numbers when stats.total (53, a status of 2026-09-17) differs from the 55 records /resets lists', async () => {
    const b = await build(
      { ...SCENARIOS['2026-09-29'], status: 'codex-resets/v1-status.2026-09-17.captured.json' },
      '2026-09-29T16:45:00Z',
    );
    const status = (await checks(b)).find((c) => c.kind === 'tracker_status')!;
    expect(status).toMatchObject({ ok: true, detail_code: 'ok_total_differs' });
    expect(status.detail).toBe('OK; the tracker counts 53 resets, its list held 55');
  });
});

describe('2026-09-29 over two pages', () => {
  it('follows the cursor and reads the same 55 records as one page', async () => {
    const one = await build(SCENARIOS['2026-09-29'], '2026-09-29T16:45:00Z');
    const two = await build(SCENARIOS['2026-09-29-paged'], '2026-09-29T16:45:00Z');
    expect(
      two.replay.requests
        .filter((r) => r.path.startsWith('/api/v1/resets'))
        .map((r) => new URL(r.path, 'http://x').searchParams.get('cursor')),
    ).toEqual([null, 'eyJhIjoiMjAyNi0wNi0yOFQyMzo1NDowNy4wMDBaIn0']);
    expect((await checks(two)).find((c) => c.kind === 'reset_tracker')).toMatchObject({
      ok: true,
      items_read: 55,
      detail_code: 'ok',
    });
    expect((await history(two)).map((e) => e.id)).toEqual((await history(one)).map((e) => e.id));
  });
});

describe('2026-09-22: a reset announced for Tuesday', () => {
  it('publishes the announcement as upcoming, in its own words, and the forecast reads it', async () => {
    const b = await build(SCENARIOS['2026-09-22'], '2026-09-22T12:00:00Z');
    const latest = await b.doc<{ upcoming: Record<string, unknown> | null }>('api/en/latest.json');
    expect(latest.upcoming).toMatchObject({
      id: 'sr-2102254445082116335',
      type: 'global_reset',
      announced_at: '2026-09-22T04:31:32Z',
      scheduled_for: '2026-09-23T06:59:00Z',
      source_url: post('2102254445082116335'),
    });
    expect(String(latest.upcoming!.text)).toContain('I promised a reset for Tuesday');
    const f = await b.doc<{ announced: { id: string; inside_24h: boolean } | null }>('api/en/forecast.json');
    // 06:59 on the 23rd is 18 h 59 min after the build: inside the 24 h horizon.
    expect(f.announced).toMatchObject({ id: 'sr-2102254445082116335', inside_24h: true });
  });
});

describe('Reddit refusing the runner', () => {
  it('reports a 403 as blocked, asks once, and leaves today to the reset sources', async () => {
    const b = await build({ ...SCENARIOS['2026-09-29'], reddit: 403 }, '2026-09-29T16:45:00Z');
    expect(b.code).toBe(0);
    const feed = (await checks(b)).find((c) => c.kind === 'signal_feed');
    expect(feed).toMatchObject({ ok: false, http_status: 403, detail_code: 'blocked' });
    expect(b.replay.requests.filter((r) => r.path === '/r/codex/new/.rss')).toHaveLength(1);
    const latest = await b.doc<{ today: { state: string } }>('api/en/latest.json');
    expect(latest.today.state).toBe('no_verified_reset');
    const de = await b.doc<{ source_checks: Check[] }>('api/de/status.json');
    expect(de.source_checks.find((c) => c.kind === 'signal_feed')?.detail).toContain('gesperrt');
  });
});

describe('2026-09-25: the full Codex outage, Reddit rate limiting', () => {
  const outage: Scenario = {
    // The tracker as it stood before the outage: the 53 records of 2026-09-22 and a status with nothing announced.
    resets: { file: 'codex-resets/v1-resets.limit100.2026-09-22.json' },
    status: 'codex-resets/v1-status.2026-09-17.captured.json',
    summary: 'openai-status/summary.codex-full-outage.2026-09-25.reconstructed.json',
    // The captured feed with the outage's incident added, reconstructed in its shape from the README's facts.
    incidents: {
      body: {
        incidents: [
          issuesWithCodex(),
          ...captureJson<{ incidents: FeedIncident[] }>('openai-status/proxy-status.openai.com.incidents.captured.json')
            .incidents,
        ],
      },
    },
    reddit: 429,
  };

  it('shows every Codex component as the page says it, CLI and VS Code extension included', async () => {
    const b = await build(outage, '2026-09-25T23:15:00Z');
    const status = await b.doc<{ upstream_status: { components: { name: string; status: string }[] } | null }>(
      'api/en/status.json',
    );
    const down = status
      .upstream_status!.components.filter((c) => c.status === 'full_outage')
      .map((c) => c.name)
      .sort();
    expect(down).toEqual(['CLI', 'Codex API', 'Codex Web', 'VS Code extension']);
    // The incident is a signal in the same tick; the summary's own timestamp is the page's, never our freshness.
    expect(await signals(b)).toContainEqual(
      expect.objectContaining({ kind: 'status_incident', title: 'Issues with Codex' }),
    );
    expect((await checks(b)).find((c) => c.kind === 'status_incidents')).toMatchObject({ ok: true, http_status: 200 });
  });

  it('keeps the summary when the incident feed answers 404', async () => {
    const b = await build({ ...outage, incidents: 404 }, '2026-09-25T23:15:00Z');
    const all = await checks(b);
    expect(all.find((c) => c.kind === 'status_incidents')).toMatchObject({ ok: false, http_status: 404 });
    expect(all.find((c) => c.kind === 'status_page')).toMatchObject({ ok: true, http_status: 200 });
  });

  it('records Reddit rate limiting as a failed feed check without touching today', async () => {
    const b = await build(outage, '2026-09-25T23:15:00Z');
    const feed = (await checks(b)).find((c) => c.kind === 'signal_feed');
    expect(feed).toMatchObject({ ok: false, http_status: 429 });
    expect(feed!.detail_code).toMatch(/^rate_limited/);
    expect((await b.doc<{ today: { state: string } }>('api/en/latest.json')).today.state).toBe('no_verified_reset');
  });
});
