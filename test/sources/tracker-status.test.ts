import { afterEach, describe, expect, it } from 'vitest';
import { applySourceResults } from '../../builder/model/apply.ts';
import { emptyState } from '../../builder/model/schemas.ts';
import { sourceConfigsFromEnv, disabledSourcesFromEnv } from '../../builder/sources/config.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { fetchTrackerStatus } from '../../builder/sources/tracker-status.ts';
import { AS_OF, sendJson, startServer, testFetcher, type TestServer } from './helpers.ts';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const scheduled = {
  id: 'rst_2026-11-21_pm',
  status: 'scheduled',
  reset_type: 'regular',
  announced_at: '2026-11-21T03:00:00-08:00',
  scheduled_for: '2026-11-21T17:00:00Z',
  text: 'Resetting <b>everyone\u0000s</b> Codex limits at 9am PT.',
  source: { type: 'x_post', author: 'example_dev', url: 'https://x.com/example_dev/status/1991234567890123456' },
};

async function serve(body: unknown, status = 200): Promise<SourceConfig> {
  server = await startServer((_req, res) => sendJson(res, body as object, status));
  return { id: 'tracker-status', kind: 'tracker_status', url: `${server.url}/api/v1/status` };
}

describe('fetchTrackerStatus', () => {
  it('maps data.scheduled_reset to a cleaned announcement with the id the applied record will get', async () => {
    const r = await fetchTrackerStatus(
      testFetcher(),
      await serve({
        data: { latest_reset: null, scheduled_reset: scheduled, active_watch: null, stats: { total: 3 } },
        meta: { api_version: '1' },
      }),
      AS_OF,
    );
    expect(r.check).toMatchObject({ ok: true, kind: 'tracker_status', items_read: 1, detail: { code: 'ok' } });
    expect(r.announcement).toEqual({
      id: 'sr-rst_2026-11-21_pm',
      upstream_id: 'rst_2026-11-21_pm',
      type: 'global_reset',
      announced_at: '2026-11-21T11:00:00Z',
      scheduled_for: '2026-11-21T17:00:00Z',
      // As reset-tracker.ts keeps evidence: tags become spaces, control characters go, nothing else changes.
      text: 'Resetting  everyones  Codex limits at 9am PT.',
      source: { platform: 'X', url: scheduled.source.url, author: 'example_dev' },
      first_seen_at: '2026-11-21T12:00:00Z',
    });
  });

  it('reads a missing or null part as none, a null scheduled_for and unknown types as such, and names a malformed part without failing the rest', async () => {
    for (const data of [{}, { scheduled_reset: null }]) {
      const r = await fetchTrackerStatus(testFetcher(), await serve({ data }), AS_OF);
      expect(r.check).toMatchObject({ ok: true, detail: { code: 'ok' } });
      expect(r.announcement).toBeNull();
      expect(r.watch).toBeNull();
      await server!.close();
      server = null;
    }
    const broken = await fetchTrackerStatus(
      testFetcher(),
      await serve({ data: { scheduled_reset: scheduled, active_watch: { since: 'x' }, stats: 'weird' } }),
      AS_OF,
    );
    expect(broken.check).toMatchObject({
      ok: true,
      detail: {
        code: 'ok_with_unreadable_parts',
        params: { parts: 'active_watch.level (invalid_record), stats (invalid_record)' },
      },
    });
    expect(broken.announcement).toMatchObject({ id: 'sr-rst_2026-11-21_pm' });
    expect(broken.watch).toBeUndefined();
    await server!.close();
    server = null;
    const r = await fetchTrackerStatus(
      testFetcher(),
      await serve({ data: { scheduled_reset: { ...scheduled, reset_type: 'mega_boost', scheduled_for: null } } }),
      AS_OF,
    );
    expect(r.announcement).toMatchObject({ type: null, scheduled_for: null });
    // A type named like an Object property is no type of ours either (it failed the announcement's schema).
    for (const reset_type of ['constructor', '__proto__', 'toString']) {
      await server!.close();
      server = null;
      const odd = await fetchTrackerStatus(
        testFetcher(),
        await serve({ data: { scheduled_reset: { ...scheduled, reset_type } } }),
        AS_OF,
      );
      expect(odd.check.ok).toBe(true);
      expect(odd.announcement).toMatchObject({ type: null });
    }
  });

  it('accepts an observed announcement without link or author and with empty text, as the service documents them', async () => {
    const observed = { ...scheduled, text: '', source: { type: 'observed' } };
    const r = await fetchTrackerStatus(testFetcher(), await serve({ data: { scheduled_reset: observed } }), AS_OF);
    expect(r.check).toMatchObject({ ok: true, detail: { code: 'ok' } });
    expect(r.announcement).toMatchObject({ id: 'sr-rst_2026-11-21_pm', text: '', source: null });
  });

  it('leaves out an announcement with a bad link or a bad, future or far-ahead date, naming it, and fails only without a data object', async () => {
    for (const [patch, path] of [
      [{ source: { type: 'x_post', url: 'javascript:alert(1)' } }, 'scheduled_reset.source.url (bad_url)'],
      [{ source: { type: 'x_post', url: 'https://user:pw@x.com/a' } }, 'scheduled_reset.source.url (bad_url)'],
      [{ source: { type: 'x_post' } }, 'scheduled_reset.source.url (bad_url)'],
      [{ scheduled_for: 'tomorrow' }, 'scheduled_reset.scheduled_for (bad_date)'],
      [{ announced_at: '2026-11-21T13:00:00Z' }, 'scheduled_reset.announced_at (future_date)'],
      [{ announced_at: '2019-01-01T00:00:00Z' }, 'scheduled_reset.announced_at (before_era)'],
      [{ scheduled_for: '2027-06-01T00:00:00Z' }, 'scheduled_reset.scheduled_for (future_date)'],
    ] as const) {
      const r = await fetchTrackerStatus(
        testFetcher(),
        await serve({ data: { scheduled_reset: { ...scheduled, ...patch } } }),
        AS_OF,
      );
      expect(r.check).toMatchObject({
        ok: true,
        detail: { code: 'ok_with_unreadable_parts', params: { parts: path } },
      });
      expect(r.announcement).toBeUndefined();
      await server!.close();
      server = null;
    }
    const r = await fetchTrackerStatus(testFetcher(), await serve({ nope: true }), AS_OF);
    expect(r.check).toMatchObject({ ok: false, detail: { code: 'schema_mismatch' } });
  });

  it('names a time without a zone instead of reading it in the machine zone', async () => {
    for (const [patch, path] of [
      [{ announced_at: '2026-11-21T03:00:00' }, 'scheduled_reset.announced_at (no_timezone)'],
      [{ scheduled_for: '2026-11-21 17:00' }, 'scheduled_reset.scheduled_for (no_timezone)'],
      [{ scheduled_for: 'Sat, 21 Nov 2026 17:00:00' }, 'scheduled_reset.scheduled_for (no_timezone)'],
    ] as const) {
      const r = await fetchTrackerStatus(
        testFetcher(),
        await serve({ data: { scheduled_reset: { ...scheduled, ...patch } } }),
        AS_OF,
      );
      expect(r.check).toMatchObject({
        ok: true,
        detail: { code: 'ok_with_unreadable_parts', params: { parts: path } },
      });
      expect(r.announcement).toBeUndefined();
      await server!.close();
      server = null;
    }
  });

  it('a failed check or an unreadable part leaves the last good announcement in state; an ok one replaces it, keeping first_seen_at', async () => {
    const cfg = await serve({ data: { scheduled_reset: scheduled } });
    const first = applySourceResults(emptyState(), [await fetchTrackerStatus(testFetcher(), cfg, AS_OF)], [], AS_OF);
    expect(first.announcement?.id).toBe('sr-rst_2026-11-21_pm');
    const later = new Date(AS_OF.getTime() + 15 * 60_000);
    const again = applySourceResults(first, [await fetchTrackerStatus(testFetcher(), cfg, later)], [], later);
    expect(again.announcement?.first_seen_at).toBe('2026-11-21T12:00:00Z');
    await server!.close();
    server = null;
    const failed = applySourceResults(
      again,
      [await fetchTrackerStatus(testFetcher({ retries: 0 }), cfg, later)],
      [],
      later,
    );
    expect(failed.announcement).toEqual(again.announcement);
    const unreadable = applySourceResults(
      again,
      [
        await fetchTrackerStatus(
          testFetcher(),
          await serve({ data: { scheduled_reset: { ...scheduled, announced_at: 'soon' } } }),
          later,
        ),
      ],
      [],
      later,
    );
    expect(unreadable.announcement).toEqual(again.announcement);
    await server!.close();
    server = null;
    const none = applySourceResults(
      again,
      [await fetchTrackerStatus(testFetcher(), await serve({ data: { scheduled_reset: null } }), later)],
      [],
      later,
    );
    expect(none.announcement).toBeNull();
  });
});

describe('RESET_UPSTREAM_STATUS_URL', () => {
  const status = (env: Record<string, string>) => sourceConfigsFromEnv(env).find((c) => c.kind === 'tracker_status');
  it('defaults to the tracker URL with its final /resets replaced by /status', () => {
    expect(status({})?.url).toBe('https://codex-resets.com/api/v1/status');
    expect(status({ RESET_UPSTREAM_URL: 'http://127.0.0.1:9/x/resets/resets?limit=5' })?.url).toBe(
      'http://127.0.0.1:9/x/resets/status',
    );
  });
  it('takes an explicit URL; none, empty, a disabled tracker or a tracker URL without /resets disable it', () => {
    expect(status({ RESET_UPSTREAM_STATUS_URL: 'https://t.example/s' })?.url).toBe('https://t.example/s');
    for (const env of [
      { RESET_UPSTREAM_STATUS_URL: 'none' },
      { RESET_UPSTREAM_STATUS_URL: '' },
      { RESET_UPSTREAM_URL: '' },
      { RESET_UPSTREAM_URL: 'https://t.example/feed' },
    ]) {
      expect(status(env)).toBeUndefined();
      expect(disabledSourcesFromEnv(env).map((d) => d.id)).toContain('tracker-status');
    }
  });
});
