// Issue #14's "what it must show": one build against a loopback tracker reporting a reset today and an announced
// one at 17:00 UTC, its follow-it documents read with real parsers, and its notifications to a loopback receiver.
import { mkdtemp, readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGS } from '../../builder/contract.ts';
import { channelsFromEnv } from '../../builder/notify/channels.ts';
import { createNotifier } from '../../builder/notify/send.ts';
import { createLocalSink } from '../../builder/publish/local-sink.ts';
import { DOCUMENT_SCHEMAS } from '../../builder/render/schemas.ts';
import { run, type RunSummary } from '../../builder/run.ts';
import type { SourceConfig } from '../../builder/sources/fetcher.ts';
import { createHttpFetcher } from '../../builder/sources/http-fetcher.ts';
import { createLocalStateStore } from '../../builder/state/local-store.ts';
import { DATA_DIR, startLoopback, type LoopbackServer } from '../helpers/build.ts';
import {
  icsLineViolations,
  JsonFeed11Schema,
  parseAtom,
  parseCalendar,
  parseSvg,
  ShieldsEndpointSchema,
} from '../helpers/follow.ts';

const NOW = '2026-11-21T12:00:00.000Z';
const post = (n: number) => `https://x.com/example_dev/status/${n}`;
const RESETS = [
  {
    id: 'rst_today',
    reset_type: 'regular',
    announced_at: '2026-11-21T08:00:00Z',
    text: 'Limits are reset for everyone.',
    source: { type: 'observed', url: 'https://codex-resets.example/r/today' },
  },
  {
    id: 'rst_prev',
    reset_type: 'regular',
    announced_at: '2026-11-20T06:00:00Z',
    text: 'Another reset, 30 hours ago.',
    source: { type: 'x_post', author: 'example_dev', url: post(2) },
  },
  {
    id: 'rst_old',
    reset_type: 'regular',
    announced_at: '2026-11-02T15:00:00Z',
    text: 'An older reset.',
    source: { type: 'x_post', author: 'example_dev', url: post(3) },
  },
  {
    id: 'rst_banked',
    reset_type: 'banked',
    announced_at: '2026-11-18T09:00:00Z',
    text: 'Banked resets granted.',
    source: { type: 'x_post', url: post(4) },
  },
];
const SCHEDULED = {
  id: 'rst_pm',
  status: 'scheduled',
  reset_type: 'regular',
  announced_at: '2026-11-21T10:00:00Z',
  scheduled_for: '2026-11-21T17:00:00Z',
  text: 'We will reset everyone\u2019s Codex limits at 9am PT today.',
  source: { type: 'x_post', author: 'example_dev', url: post(5) },
};

let tracker: LoopbackServer;
let receiver: LoopbackServer;
const received: { headers: IncomingMessage['headers']; body: any }[] = [];
let outDir: string;
let stateDir: string;
let first: RunSummary;

async function build(now: string): Promise<RunSummary> {
  const sources: SourceConfig[] = [
    { id: 'reset-tracker', kind: 'reset_tracker', url: `${tracker.url}/api/v1/resets` },
    { id: 'tracker-status', kind: 'tracker_status', url: `${tracker.url}/api/v1/status` },
  ];
  const { channels } = channelsFromEnv({ RESET_NOTIFY_WEBHOOKS: `${receiver.url}/hook` });
  return run({
    now: () => new Date(now),
    fetcher: createHttpFetcher({ timeoutMs: 2_000, retries: 0, deadline: Date.now() + 10_000 }),
    sources,
    store: createLocalStateStore(stateDir, { now: () => new Date(now) }),
    sink: createLocalSink(outDir),
    dataDir: DATA_DIR,
    urls: { publicUrl: 'https://api.example.test' },
    notify: { notifier: createNotifier(channels, { timeoutMs: 1_000, budgetMs: 5_000 }), lang: 'de' },
  });
}

const read = (key: string) => readFile(path.join(outDir, key), 'utf8');

beforeAll(async () => {
  tracker = await startLoopback((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.startsWith('/api/v1/status')) {
      res.end(
        JSON.stringify({
          data: { latest_reset: RESETS[0], scheduled_reset: SCHEDULED, stats: { total: 4 } },
          meta: { api_version: '1', generated_at: NOW },
        }),
      );
    } else {
      res.end(
        JSON.stringify({
          data: RESETS,
          pagination: { has_more: false, next_cursor: null },
          meta: { api_version: '1', generated_at: NOW },
        }),
      );
    }
  });
  receiver = await startLoopback((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(body) });
      res.writeHead(204);
      res.end();
    });
  });
  const root = await mkdtemp(path.join(tmpdir(), 'rsa-reach-'));
  outDir = path.join(root, 'dist');
  stateDir = path.join(root, 'state');
  first = await build(NOW);
});
afterAll(async () => {
  await tracker?.close();
  await receiver?.close();
});

describe('a build with a reset today and one announced for 17:00 UTC', () => {
  it('latest.upcoming and status.upcoming name the announced reset, in every language, untranslated text and all', async () => {
    expect(first.today).toBe('recorded_today');
    for (const lang of LANGS) {
      for (const name of ['latest', 'status'] as const) {
        const doc = JSON.parse(await read(`api/${lang}/${name}.json`));
        expect(DOCUMENT_SCHEMAS[name].parse(doc)).toBeTruthy();
        expect(doc.upcoming).toMatchObject({
          id: 'sr-rst_pm',
          type: 'global_reset',
          announced_at: '2026-11-21T10:00:00Z',
          scheduled_for: '2026-11-21T17:00:00Z',
          text: SCHEDULED.text,
          source_url: post(5),
        });
        expect(doc.upcoming.summary).toContain('17:00');
      }
    }
    // The forecast reads the same announcement (model/announcement.ts).
    expect(JSON.parse(await read('api/en/forecast.json')).announced).toMatchObject({
      id: 'sr-rst_pm',
      scheduled_for: '2026-11-21T17:00:00Z',
      inside_24h: true,
    });
    const en = JSON.parse(await read('api/en/latest.json')).upcoming.summary;
    expect(JSON.parse(await read('api/de/latest.json')).upcoming.summary).not.toBe(en);
  });

  it("the Atom feed parses as Atom in every language, with id, updated and title on every entry, and has today's reset", async () => {
    const ids = new Set<string>();
    for (const lang of LANGS) {
      const { feed, entries } = parseAtom(await read(`api/${lang}/feed.atom`));
      expect(feed.id).toBeTruthy();
      expect(feed.updated).toBeTruthy();
      expect(entries.length).toBeGreaterThan(3);
      for (const e of entries) {
        expect(typeof e.id).toBe('string');
        expect(Number.isNaN(Date.parse(e.updated))).toBe(false);
        expect(String(e.title['#text'] ?? e.title).length).toBeGreaterThan(0);
        ids.add(e.id);
      }
      expect(entries.map((e) => e.id)).toContain('tag:reset-status-api,2026:event/sr-rst_today');
      expect(entries[0]!.id).toBe('tag:reset-status-api,2026:announcement/sr-rst_pm');
      expect(entries[0]!.updated).toBe('2026-11-21T10:00:00Z');
    }
    // Same ids in every language: one set as large as one feed.
    expect(ids.size).toBe(parseAtom(await read('api/en/feed.atom')).entries.length);
  });

  it('JSON Feed 1.1 items have an id and content in every language', async () => {
    for (const lang of LANGS) {
      const feed = JsonFeed11Schema.parse(JSON.parse(await read(`api/${lang}/feed.json`)));
      expect(feed.language).toBe(lang);
      expect(feed.items.map((i) => i.id)).toContain('tag:reset-status-api,2026:event/sr-rst_today');
    }
  });

  it('the calendar has folded CRLF lines, VERSION, PRODID, and a UID and DTSTAMP on every event, the same UIDs in every language', async () => {
    let uids: string[] | null = null;
    for (const lang of LANGS) {
      const text = await read(`api/${lang}/calendar.ics`);
      expect(icsLineViolations(text)).toEqual([]);
      const { cal, events } = parseCalendar(text);
      expect(cal.getFirstPropertyValue('version')).toBe('2.0');
      expect(cal.getFirstPropertyValue('prodid')).toBeTruthy();
      for (const ev of events) {
        expect(ev.getFirstPropertyValue('uid')).toBeTruthy();
        expect(ev.getFirstPropertyValue('dtstamp')).toBeTruthy();
      }
      const pm = events.find((e) => e.getFirstPropertyValue('uid') === 'sr-rst_pm@reset-status-api')!;
      expect((pm.getFirstPropertyValue('dtstart') as unknown as { toJSDate(): Date }).toJSDate().toISOString()).toBe(
        '2026-11-21T17:00:00.000Z',
      );
      const these = events.map((e) => String(e.getFirstPropertyValue('uid'))).sort();
      expect(these).toContain('sr-rst_pm@reset-status-api');
      expect(these).toContain('sr-rst_today@reset-status-api');
      if (uids === null) uids = these;
      else expect(these).toEqual(uids);
    }
    // Some line was long enough to need folding, and was folded.
    expect(await read('api/ja/calendar.ics')).toMatch(/\r\n /);
  });

  it('the badge JSON fits the shields endpoint schema and the SVG is an SVG, in every language', async () => {
    for (const lang of LANGS) {
      const badge = ShieldsEndpointSchema.parse(JSON.parse(await read(`api/${lang}/badge.json`)));
      expect(badge.color).toBe('green');
      const svg = parseSvg(await read(`api/${lang}/badge.svg`));
      expect(JSON.stringify(svg)).toContain(badge.message);
    }
  });

  it("sends one notification for today's reset and one for the announcement, none for older history", () => {
    expect(first.notifications).toEqual({ sent: 2, failed: 0, skipped: 0 });
    expect(received.map((r) => [r.body.kind, r.body.id])).toEqual([
      ['reset', 'sr-rst_today'],
      ['announcement', 'sr-rst_pm'],
    ]);
    for (const r of received) {
      expect(r.headers['idempotency-key']).toBe(r.body.idempotency_key);
      expect(r.body.lang).toBe('de');
      expect(r.body.links.api).toMatch(/^https:\/\/api\.example\.test\/api\//);
    }
    expect(received[1]!.body).toMatchObject({
      scheduled_for: '2026-11-21T17:00:00Z',
      announced_at: '2026-11-21T10:00:00Z',
      links: { source: post(5) },
    });
  });

  it('the next run with the same sources sends none, and the stable documents keep their bytes', async () => {
    const atom = await read('api/en/feed.atom');
    const ics = await read('api/de/calendar.ics');
    const json = await read('api/ko/feed.json');
    const next = await build('2026-11-21T12:15:00.000Z');
    expect(next.notifications).toEqual({ sent: 0, failed: 0, skipped: 0 });
    expect(received).toHaveLength(2);
    expect(await read('api/en/feed.atom')).toBe(atom);
    expect(await read('api/de/calendar.ics')).toBe(ics);
    expect(await read('api/ko/feed.json')).toBe(json);
  });
});
