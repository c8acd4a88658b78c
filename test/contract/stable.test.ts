// Stable documents keep their bytes until their content changes; live ones say when they were made and when they go
// stale; an as-of build shows nothing from after its instant. Real builds (run, local sink), a loopback tracker.
import { cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { createTempBuild, startLoopback, trackerHandler, type LoopbackServer } from '../helpers/build.ts';

const NOW = '2026-11-21T12:00:00Z';
const LATER = '2026-11-21T12:15:00Z';
/** The present-tense documents, the human page made from them (issue #15), the unknown variants of latest, status
 * and the page, which the edge serves once they go stale (issue #13), and the expired forecast with its page (issue #40). */
const LIVE =
  /^api\/[a-z]{2}\/(unknown\/((\d{4}-\d{2}-\d{2}|stopped|forecast)\/)?)?((latest|status|forecast|signals|accuracy)\.json|index\.html)$/;
/**
 * Per language: 5 documents and the page, latest, status and the page unknown for today and 3 more dates, and
 * dateless, and the expired forecast and the page with it.
 */
const LIVE_COUNT = 5 * 6 + 5 * 3 * (4 + 1) + 5 * 2;
// The post ids are snowflakes of the announcement times (the tracker's times are checked against them).
const RECORDS = [
  {
    id: 'rst_b',
    reset_type: 'regular',
    announced_at: '2026-11-21T11:00:00Z',
    text: 'Reset for everyone.',
    source: { type: 'x_post', author: 'dev', url: 'https://x.com/dev/status/2124095476331446277' },
  },
  {
    id: 'rst_a',
    reset_type: 'regular',
    announced_at: '2026-11-20T18:02:11Z',
    text: 'Reset again.',
    source: { type: 'x_post', author: 'dev', url: 'https://x.com/dev/status/2123839334380470277' },
  },
];

let tracker: LoopbackServer;
let sources: SourceConfig[];

async function files(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    for (const d of await readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) await walk(p);
      else out.set(path.relative(root, p).split(path.sep).join('/'), await readFile(p, 'utf8'));
    }
  };
  await walk(root);
  return out;
}

const times = (e: { announced_at: string | null; observed_at: string | null; effective_at: string | null }) =>
  [e.announced_at, e.observed_at, e.effective_at]
    .filter((t): t is string => t !== null)
    .map((t) => Date.parse(t.length === 10 ? `${t}T00:00:00Z` : t));

beforeAll(async () => {
  tracker = await startLoopback(trackerHandler(() => RECORDS));
  sources = [{ id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` }];
});
afterAll(async () => tracker?.close());

describe('an idle tick', () => {
  it('rewrites only the live documents: stable ones are byte-identical 15 minutes later', async () => {
    const b = await createTempBuild();
    await b.build(NOW, sources);
    const first = await files(b.outDir);
    const second = await b.build(LATER, sources);
    const after = await files(b.outDir);
    expect([...after.keys()].sort()).toEqual([...first.keys()].sort());
    const live = [...after.keys()].filter((k) => LIVE.test(k));
    expect(live).toHaveLength(LIVE_COUNT);
    for (const [k, body] of after) {
      if (LIVE.test(k)) expect(body, k).not.toBe(first.get(k));
      else expect(body, k).toBe(first.get(k));
    }
    expect(second.published).toMatchObject({ written: LIVE_COUNT, unchanged: after.size - LIVE_COUNT });
  });

  it('live documents carry generated_at and stale_after (a day with a recorded reset: midnight); stable ones no build time', async () => {
    const b = await createTempBuild();
    await b.build(NOW, sources);
    for (const [k, body] of await files(b.outDir)) {
      if (!k.endsWith('.json')) continue;
      // JSON Feed and the shields endpoint badge are formats of their own with no room for `meta`: the feed is stable
      // (no build time), the badge live (test/follow).
      if (k.endsWith('/feed.json')) expect(body.includes(NOW), k).toBe(false);
      if (k.endsWith('/feed.json') || k.endsWith('/badge.json')) continue;
      const doc = JSON.parse(body) as { meta?: Record<string, unknown> };
      // OpenAPI and JSON Schema are formats of their own (no `meta` there); every API document has one.
      if (k !== 'api/openapi.json' && !k.startsWith('api/schemas/')) expect(doc.meta, k).toBeDefined();
      if (LIVE.test(k)) {
        expect(doc.meta!.generated_at, k).toBe(NOW);
        // The tracker has a reset today, so the answer holds until midnight (a calm day: 30 minutes, test/edge/freshness);
        // the forecast holds an hour after its issue, whatever today's answer (issue #40).
        const holds = /\/forecast\.json$/.test(k) ? '2026-11-21T13:00:00Z' : '2026-11-22T00:00:00Z';
        expect(doc.meta!.stale_after, k).toBe(holds);
      } else {
        expect(doc.meta?.generated_at, k).toBeUndefined();
        expect(doc.meta?.stale_after, k).toBeUndefined();
        expect(body.includes(NOW), k).toBe(false);
      }
    }
    const history = JSON.parse((await files(b.outDir)).get('api/de/history.json')!) as { meta: { updated_at: string } };
    // The newest time among its events: the tracker's record of 11:00 today.
    expect(history.meta.updated_at).toBe('2026-11-21T11:00:00Z');
    const banked = JSON.parse((await files(b.outDir)).get('api/en/history/policy_change.json')!) as {
      meta: { updated_at: string | null };
      events: unknown[];
    };
    expect(banked.events.length).toBeGreaterThan(0);
    const newest = Math.max(...banked.events.flatMap((e) => times(e as Parameters<typeof times>[0])));
    expect(
      Date.parse(
        banked.meta.updated_at!.length === 10 ? `${banked.meta.updated_at}T00:00:00Z` : banked.meta.updated_at!,
      ),
    ).toBe(newest);
  });
});

describe('an as-of build', () => {
  it('shows nothing from after --now, even with a state and sources that know the future', async () => {
    const now = await createTempBuild();
    await now.build(NOW, sources);
    const past = await createTempBuild();
    await cp(now.stateDir, past.stateDir, { recursive: true });
    const PAST = '2026-09-01T00:00:00Z';
    const pastMs = Date.parse(PAST);
    // Without --rebuild-past a run older than the stored state refuses (fencing: never publish the past over the present).
    await expect(past.build(PAST, sources)).rejects.toThrow(/newer than this run/);
    await past.build(PAST, sources, undefined, { rebuildPast: true });
    const out = await files(past.outDir);
    const json = (k: string) => JSON.parse(out.get(k)!) as any;
    let events = 0;
    for (const [k, body] of out) {
      if (!/^api\/[a-z]{2}\/(history|history\/\w+|events\/.+)\.json$/.test(k)) continue;
      const doc = JSON.parse(body);
      for (const e of doc.events ?? [doc.event]) {
        events++;
        expect(Math.min(...times(e)), `${k} ${e.id}`).toBeLessThanOrEqual(pastMs);
      }
      if (doc.meta.updated_at !== null)
        expect(
          Date.parse(doc.meta.updated_at.length === 10 ? `${doc.meta.updated_at}T00:00:00Z` : doc.meta.updated_at),
        ).toBeLessThanOrEqual(pastMs);
    }
    expect(events).toBeGreaterThan(0);
    expect([...out.keys()].some((k) => k.includes('ledger-2026-09-12'))).toBe(false);
    for (const lang of ['en', 'ja']) {
      const latest = json(`api/${lang}/latest.json`);
      expect(Date.parse(latest.latestReset.occurred_at)).toBeLessThanOrEqual(pastMs);
      expect(Date.parse(latest.last_source_check_at)).toBeLessThanOrEqual(pastMs);
      const status = json(`api/${lang}/status.json`);
      for (const e of status.recent_events) expect(Math.min(...times(e))).toBeLessThanOrEqual(pastMs);
      for (const c of status.source_checks) expect(Date.parse(c.checked_at)).toBeLessThanOrEqual(pastMs);
      const forecast = json(`api/${lang}/forecast.json`);
      expect(forecast.issued_at).toBe(PAST);
      expect(Date.parse(forecast.last_global_reset_at)).toBeLessThanOrEqual(pastMs);
      for (const f of json(`api/${lang}/accuracy.json`).forecasts)
        expect(Date.parse(f.issued_at)).toBeLessThanOrEqual(pastMs);
      for (const s of json(`api/${lang}/signals.json`).signals)
        expect(Date.parse(s.first_seen_at)).toBeLessThanOrEqual(pastMs);
    }
    // The same sources at the present show the newer events again.
    const present = await files(now.outDir);
    expect(present.get('api/en/history.json')).toContain('2026-11-21T11:00:00Z');
  });
});
