// Time is never the machine's. The real build (builder/main.ts in a child process) runs three times with the same
// `--now` against the same loopback sources, under TZ=UTC, TZ=America/Los_Angeles (UTC-8 in November) and
// TZ=Pacific/Kiritimati (UTC+14: another calendar date for most of the day). The sources serve timestamps with and
// without a zone in every place a source has one: tracker records, the tracker's announced reset, the status page's
// own time and its incidents, RSS pubDate (RFC 2822), Atom, JSON Feed. Pins that every file of dist/ and of the state
// is byte-identical across the three, and that the per-source rule (docs/sources.md "Time") is the one applied.
import { mkdtemp, readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopback, type LoopbackServer } from '../helpers/build.ts';
import { listFiles } from '../helpers/files.ts';
import { runMain, type MainResult } from '../helpers/main-process.ts';

// 23:30 UTC: already the next day in Kiritimati, still the afternoon in Los Angeles, so a date taken in local time
// differs in all three.
const AS_OF = '2026-11-21T23:30:00Z';
const ZONES = ['UTC', 'America/Los_Angeles', 'Pacific/Kiritimati'] as const;

const post = (id: string) => ({
  type: 'observed',
  author: 'example_dev',
  url: `https://forum.example.test/post/${id}`,
});
const tracker = {
  data: [
    {
      id: 'zoned-z',
      reset_type: 'regular',
      announced_at: '2026-11-21T10:00:00Z',
      text: 'Codex limits reset for everyone.',
      source: post('a'),
    },
    {
      id: 'zoned-offset',
      reset_type: 'banked',
      announced_at: '2026-11-21T09:00:00-08:00',
      text: 'A banked reset for Plus.',
      source: post('b'),
    },
    // Zone-less: refused (no_timezone), never read in the machine's zone.
    {
      id: 'zoneless',
      reset_type: 'regular',
      announced_at: '2026-11-21T20:00:00',
      text: 'Zone-less record.',
      source: post('c'),
    },
    {
      id: 'zoneless-date',
      reset_type: 'regular',
      announced_at: '2026-11-20',
      text: 'Date-only record.',
      source: post('d'),
    },
  ],
  pagination: { has_more: false, next_cursor: null },
  meta: { api_version: '1', generated_at: AS_OF },
};
const trackerStatus = {
  data: {
    scheduled_reset: {
      id: 'next',
      status: 'scheduled',
      reset_type: 'regular',
      announced_at: '2026-11-21T21:00:00+09:00',
      scheduled_for: '2026-11-22T02:00:00-05:00',
      text: 'Resetting at 2am ET.',
      source: { type: 'x_post', url: 'https://forum.example.test/post/e' },
    },
  },
};
const statusPage = {
  page: { id: 'p', name: 'Example', url: 'https://status.example.test', updated_at: '2026-11-21T23:00:00' },
  status: { indicator: 'minor', description: 'Degraded' },
  components: [{ id: 'c1', name: 'Codex Web', status: 'degraded_performance' }],
  incidents: [
    {
      id: 'inc-zoneless',
      name: 'Codex errors (zone-less)',
      status: 'investigating',
      created_at: '2026-11-21T21:00:00',
      components: [],
    },
    {
      id: 'inc-offset',
      name: 'Codex slow (offset)',
      status: 'monitoring',
      started_at: '2026-11-22T08:00:00+14:00',
      components: [],
    },
    {
      id: 'inc-far',
      name: 'Codex from the far future',
      status: 'investigating',
      started_at: '9999-12-31',
      components: [],
    },
    {
      id: 'inc-far-z',
      name: 'Codex from the far future, zoned',
      status: 'investigating',
      started_at: '9999-12-31T23:59:59Z',
      components: [],
    },
  ],
};
const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>codex news</title>
<item><title>Codex reset (RSS, zone-less)</title><link>https://forum.example.test/rss/1</link><pubDate>Sat, 21 Nov 2026 22:10:00</pubDate></item>
<item><title>Codex reset (RSS, PST)</title><link>https://forum.example.test/rss/2</link><pubDate>Sat, 21 Nov 2026 14:20:00 PST</pubDate></item>
<item><title>Codex reset (RSS, slashes)</title><link>https://forum.example.test/rss/3</link><pubDate>2026/11/21 22:30</pubDate></item>
</channel></rss>`;
const atom = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>codex forum</title><id>f</id><updated>2026-11-21T22:00:00Z</updated>
<entry><id>a1</id><title>Codex reset (Atom, zone-less)</title><link href="https://forum.example.test/atom/1"/><updated>2026-11-21T22:40:00</updated></entry>
</feed>`;
const jsonFeed = {
  version: 'https://jsonfeed.org/version/1.1',
  title: 'codex blog',
  items: [
    {
      id: 'j1',
      url: 'https://forum.example.test/json/1',
      title: 'Codex reset (JSON Feed, zone-less)',
      content_text: 'x',
      date_published: '2026-11-21 22:50:00',
    },
    {
      id: 'j2',
      url: 'https://forum.example.test/json/2',
      title: 'Codex reset (JSON Feed, +05:30)',
      content_text: 'x',
      date_published: '2026-11-22T04:25:00+05:30',
    },
  ],
};

/**
 * What differs between any two runs whatever the zone, because it is measured, not read from a clock: each check's
 * latency and the run lock's random owner id. Masked (to the same width-free token) before the byte comparison;
 * every other byte must match.
 */
const MEASURED = [/"latency_ms":\s*\d+/g, /"owner":\s*"run-[0-9a-f-]+"/g];
const masked = (b: Buffer): Buffer =>
  Buffer.from(
    MEASURED.reduce((s, re) => s.replace(re, '<measured>'), b.toString('latin1')),
    'latin1',
  );

interface Signal {
  title: string;
  published_at: string | null;
}

describe('the build under three machine time zones', () => {
  let sources: LoopbackServer;
  let root: string;
  const runs = new Map<string, MainResult>();
  const dirOf = (tz: string) => path.join(root, tz.replace('/', '_'));
  const read = (tz: string, rel: string) => readFile(path.join(dirOf(tz), rel));

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rsa-timezones-'));
    sources = await startLoopback((req: IncomingMessage, res: ServerResponse) => {
      const send = (body: string, type: string) => {
        res.writeHead(200, { 'content-type': type });
        res.end(body);
      };
      const p = new URL(req.url ?? '/', 'http://x').pathname;
      if (p === '/api/v1/resets') return send(JSON.stringify(tracker), 'application/json');
      if (p === '/api/v1/status') return send(JSON.stringify(trackerStatus), 'application/json');
      if (p === '/summary.json') return send(JSON.stringify(statusPage), 'application/json');
      if (p === '/rss') return send(rss, 'application/rss+xml');
      if (p === '/atom') return send(atom, 'application/atom+xml');
      if (p === '/json') return send(JSON.stringify(jsonFeed), 'application/feed+json');
      res.writeHead(404);
      res.end();
    });
    for (const tz of ZONES) {
      const dir = dirOf(tz);
      runs.set(
        tz,
        await runMain(['--now', AS_OF, '--out', path.join(dir, 'dist'), '--state-dir', path.join(dir, 'state')], {
          TZ: tz,
          RESET_STATUS_PAGE_URL: `${sources.url}/summary.json`,
          RESET_UPSTREAM_URL: `${sources.url}/api/v1/resets`,
          RESET_TIMELINE_URL: '',
          RESET_POST_EMBED_URL: '',
          RESET_SIGNAL_FEEDS: ['rss', 'atom', 'json'].map((f) => `${sources.url}/${f}`).join(','),
        }),
      );
    }
  }, 120_000);

  afterAll(async () => {
    await sources?.close();
  });

  it('builds under each zone, and the zones really differ on this machine', () => {
    for (const tz of ZONES) expect(runs.get(tz)!.code, `${tz}: ${runs.get(tz)!.stderr}`).toBe(0);
    // What each zone's machine would call the date and hour of AS_OF, had anything asked it.
    const local = ZONES.map((tz) =>
      new Intl.DateTimeFormat('en-CA', {
        timeZone: tz,
        dateStyle: 'short',
        timeStyle: 'short',
        hourCycle: 'h23',
      }).format(new Date(AS_OF)),
    );
    expect(new Set(local).size).toBe(3);
    expect(new Set(local.map((l) => l.slice(0, 10))).size).toBe(2);
  });

  it('writes byte-identical files to dist/ and the state under TZ=UTC, America/Los_Angeles and Pacific/Kiritimati', async () => {
    for (const dir of ['dist', 'state']) {
      const lists = await Promise.all(ZONES.map((tz) => listFiles(path.join(dirOf(tz), dir))));
      expect(lists[0]!.length, dir).toBeGreaterThan(dir === 'dist' ? 100 : 0);
      for (const list of lists.slice(1)) expect(list.sort()).toEqual(lists[0]!.sort());
      for (const f of lists[0]!) {
        const [a, ...others] = await Promise.all(ZONES.map((tz) => read(tz, `${dir}/${f}`)));
        for (const [i, b] of others.entries())
          expect(masked(b!).equals(masked(a!)), `${dir}/${f} under ${ZONES[i + 1]} differs from UTC`).toBe(true);
      }
    }
    // stdout names the build's time and its output directory (one per zone here); the same in every zone otherwise.
    expect(new Set(ZONES.map((tz) => runs.get(tz)!.stdout.replaceAll(dirOf(tz), '<dir>'))).size).toBe(1);
  });

  it('reads zone-less feed dates as UTC and refuses zone-less tracker and status-page times, naming why', async () => {
    const signals = (JSON.parse((await read('UTC', 'dist/api/en/signals.json')).toString()) as { signals: Signal[] })
      .signals;
    const at = Object.fromEntries(signals.map((s) => [s.title, s.published_at]));
    expect(at).toMatchObject({
      'Codex reset (RSS, zone-less)': '2026-11-21T22:10:00Z',
      'Codex reset (RSS, PST)': '2026-11-21T22:20:00Z',
      // Not a format a feed date is written in: no date rather than the machine's reading of it.
      'Codex reset (RSS, slashes)': null,
      'Codex reset (Atom, zone-less)': '2026-11-21T22:40:00Z',
      'Codex reset (JSON Feed, zone-less)': '2026-11-21T22:50:00Z',
      'Codex reset (JSON Feed, +05:30)': '2026-11-21T22:55:00Z',
      'Codex slow (offset)': '2026-11-21T18:00:00Z',
    });
    // The status page's zone-less incident and the far-future one are refused.
    expect(Object.keys(at)).not.toContain('Codex errors (zone-less)');
    expect(Object.keys(at)).not.toContain('Codex from the far future');
    expect(Object.keys(at)).not.toContain('Codex from the far future, zoned');

    const status = JSON.parse((await read('UTC', 'dist/api/en/status.json')).toString()) as {
      source_checks: { source: string; ok: boolean; detail_code: string; detail: string }[];
      upstream_status: { page_updated_at: string | null };
      upcoming: { announced_at: string; scheduled_for: string } | null;
    };
    const by = Object.fromEntries(status.source_checks.map((c) => [c.source, c]));
    expect(by['reset-tracker']).toMatchObject({ ok: true, detail_code: 'ok_with_rejections' });
    expect(by['reset-tracker']!.detail).toContain('no_timezone 2');
    // The page's own zone-less time, the zone-less incident and the date-only 9999-12-31 one.
    expect(by['status-page']!.detail).toContain('no_timezone 3');
    expect(by['status-page']!.detail).toContain('future_date 1');
    expect(status.upstream_status.page_updated_at).toBeNull();
    expect(status.upcoming).toMatchObject({
      announced_at: '2026-11-21T12:00:00Z',
      scheduled_for: '2026-11-22T07:00:00Z',
    });

    const history = JSON.parse((await read('UTC', 'dist/api/en/history.json')).toString()) as {
      events: { id: string; occurred_at: string }[];
    };
    const tracked = history.events.filter((e) => e.id.startsWith('sr-')).map((e) => [e.id, e.occurred_at]);
    expect(tracked).toEqual([
      ['sr-zoned-offset', '2026-11-21T17:00:00Z'],
      ['sr-zoned-z', '2026-11-21T10:00:00Z'],
    ]);
  });
});
