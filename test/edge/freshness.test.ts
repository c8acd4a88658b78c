// Every host behaves like the edge, clock included: a real build writes its documents, their unknown variants and
// the edge store; the real preview and the Worker in workerd, given a fixed clock, answer over HTTP what CloudFront
// would at that instant (the Worker reads the store from its assets, the preview from the file).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_FRESHNESS_KEY, EDGE_STORE_FILE, LANGS } from '../../builder/contract.ts';
import { translator } from '../../builder/render/i18n.ts';
import {
  createTempBuild,
  startLoopback,
  trackerHandler,
  type LoopbackServer,
  type TempBuild,
} from '../helpers/build.ts';
import { TARGETS, startTarget, type ServedApi, type TargetName } from '../helpers/targets.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RECORD = {
  id: 'r-2026-11-21-a',
  reset_type: 'regular',
  announced_at: '2026-11-21T09:15:00Z',
  text: 'We have reset Codex rate limits for everyone.',
  source: { type: 'x_post', author: 'someone', url: 'https://x.com/someone/status/999000111' },
};

let calmTracker: LoopbackServer;
let resetTracker: LoopbackServer;
let calm: TempBuild;
let resetDay: TempBuild;
/** A calm day built as issue #40 measured it: the bundled history gives the forecast probabilities. */
let forecastDay: TempBuild;
const open: ServedApi[] = [];

beforeAll(async () => {
  calmTracker = await startLoopback(trackerHandler(() => []));
  resetTracker = await startLoopback(trackerHandler(() => [RECORD]));
  calm = await createTempBuild({ edgeStore: true });
  expect(
    (
      await calm.build('2026-11-21T12:00:00Z', [
        { id: 'reset-tracker', kind: 'reset_tracker', url: `${calmTracker.url}/api/v1/resets` },
      ])
    ).today,
  ).toBe('no_verified_reset');
  resetDay = await createTempBuild({ edgeStore: true });
  expect(
    (
      await resetDay.build('2026-11-21T23:50:00Z', [
        { id: 'reset-tracker', kind: 'reset_tracker', url: `${resetTracker.url}/api/v1/resets` },
      ])
    ).today,
  ).toBe('recorded_today');
  forecastDay = await createTempBuild({ edgeStore: true });
  await forecastDay.build('2026-09-08T12:00:00Z', [
    { id: 'reset-tracker', kind: 'reset_tracker', url: `${calmTracker.url}/api/v1/resets` },
  ]);
});

afterAll(async () => {
  await Promise.all(open.map((p) => p.close()));
  await calmTracker?.close();
  await resetTracker?.close();
});

async function serveAt(target: TargetName, build: TempBuild, iso: string): Promise<ServedApi> {
  const p = await startTarget(target, build.outDir, Date.parse(iso));
  open.push(p);
  return p;
}

async function get(p: ServedApi, target: string) {
  const res = await fetch(p.url + target);
  return {
    status: res.status,
    lang: res.headers.get('content-language'),
    body: (await res.json()) as Record<string, any>,
  };
}

describe('a calm day built at 12:00 UTC', () => {
  it('writes stale_after 30 minutes after the good check into the store next to the documents', async () => {
    const store = JSON.parse(await readFile(path.join(calm.outDir, EDGE_STORE_FILE), 'utf8'));
    expect(JSON.parse(store[EDGE_FRESHNESS_KEY])).toEqual({
      stale_after: '2026-11-21T12:30:00Z',
      build_date: '2026-11-21',
      next_date: '2026-11-22',
      variant_dates: ['2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24'],
      forecast_stale_after: '2026-11-21T13:00:00Z',
    });
  });

  it('answers no_verified_reset and reset false at 12:10 (through `npm run preview -- --now`)', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'builder/edge/preview.ts',
        '--port',
        '0',
        '--dir',
        calm.outDir,
        '--now',
        '2026-11-21T12:10:00Z',
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /on (http:\/\/[^/\s]+)\/api\/latest/.exec(out);
          if (m) resolve(m[1] as string);
        });
        child.once('exit', (code) => reject(new Error(`preview exited ${code}: ${out}`)));
      });
      const res = await fetch(`${url}/api/latest`);
      const body = (await res.json()) as { reset: boolean | null; today: { state: string } };
      expect(res.status).toBe(200);
      expect(body.today.state).toBe('no_verified_reset');
      expect(body.reset).toBe(false);
    } finally {
      child.kill();
    }
  });
});

describe.each(TARGETS)('through the %s', (target) => {
  describe('a calm day built at 12:00 UTC', () => {
    it('answers no_verified_reset up to the last millisecond before stale_after', async () => {
      const p = await serveAt(target, calm, '2026-11-21T12:29:59.999Z');
      expect((await get(p, '/api/latest')).body).toMatchObject({ reset: false, today: { state: 'no_verified_reset' } });
      expect((await get(p, '/api/badge.json')).body).toEqual(
        JSON.parse(await readFile(path.join(calm.outDir, 'api/en/badge.json'), 'utf8')),
      );
    });

    it('answers unknown and reset null at 12:31, in the requested language, for latest and status', async () => {
      const p = await serveAt(target, calm, '2026-11-21T12:31:00Z');
      const latest = await get(p, '/api/latest');
      expect(latest.status).toBe(200);
      expect(latest.body).toMatchObject({
        reset: null,
        today: { state: 'unknown', reset: null, date: '2026-11-21', last_good_check_at: '2026-11-21T12:00:00Z' },
      });
      const de = await get(p, '/api/status?lang=de');
      expect(de.lang).toBe('de');
      expect(de.body).toMatchObject({ reset: null, meta: { lang: 'de' }, today: { state: 'unknown' } });
      expect(de.body.today.explanation).not.toBe(latest.body.today.explanation);
      // The human page is made from the unknown variants too.
      const page = await fetch(`${p.url}/de/`);
      expect(await page.text()).toBe(
        await readFile(path.join(calm.outDir, 'api/de/unknown/2026-11-21/index.html'), 'utf8'),
      );
      expect(await readFile(path.join(calm.outDir, 'api/de/unknown/2026-11-21/index.html'), 'utf8')).not.toBe(
        await readFile(path.join(calm.outDir, 'api/de/index.html'), 'utf8'),
      );
      // The badge says today's state too: its unknown variant, in the language, as JSON and as SVG.
      const badge = await get(p, '/api/badge.json?lang=de');
      expect(badge.body).toEqual(
        JSON.parse(await readFile(path.join(calm.outDir, 'api/de/unknown/badge.json'), 'utf8')),
      );
      expect(badge.body).toMatchObject({ schemaVersion: 1, color: 'lightgrey' });
      expect(badge.body.message).not.toBe(
        JSON.parse(await readFile(path.join(calm.outDir, 'api/de/badge.json'), 'utf8')).message,
      );
      const svg = await fetch(`${p.url}/api/badge.svg`);
      expect(await svg.text()).toBe(await readFile(path.join(calm.outDir, 'api/en/unknown/badge.svg'), 'utf8'));
      // Documents that say nothing about today are served as built.
      const forecast = await get(p, '/api/forecast');
      expect(forecast.body).toEqual(JSON.parse(await readFile(path.join(calm.outDir, 'api/en/forecast.json'), 'utf8')));
    });

    it('answers unknown for the next UTC date after midnight', async () => {
      const p = await serveAt(target, calm, '2026-11-22T00:00:00Z');
      expect((await get(p, '/api/latest?lang=ja')).body).toMatchObject({
        reset: null,
        today: { state: 'unknown', date: '2026-11-22' },
      });
    });

    // Builds stopped after this one: over HTTP, 2, 3 and 10 days later, today names the reader's UTC date or none.
    it.each([
      ['2026-11-23T12:00:00Z', '2026-11-23'],
      ['2026-11-24T12:00:00Z', '2026-11-24'],
      ['2026-12-01T12:00:00Z', null],
    ] as const)(
      'at %s (builds stopped) answers unknown for %s (null: the dateless variant), saying since when',
      async (iso, date) => {
        const p = await serveAt(target, calm, iso);
        const segment = date ?? 'stopped';
        for (const lang of ['en', 'ko'] as const) {
          const latest = await get(p, `/api/latest?lang=${lang}`);
          expect(latest.status).toBe(200);
          expect(latest.body).toMatchObject({
            reset: null,
            today: { state: 'unknown', date, last_good_check_at: '2026-11-21T12:00:00Z' },
          });
          expect(latest.body.today.explanation).toBe(
            translator(lang)('common:state.unknown_expired', { since: '2026-11-21T12:30:00Z' }),
          );
          expect(latest.body.last_source_check_at).toBe('2026-11-21T12:00:00Z');
          const status = await get(p, `/api/status?lang=${lang}`);
          expect(status.body.today).toEqual(latest.body.today);
          const page = await fetch(`${p.url}/${lang}/`);
          expect(await page.text()).toBe(
            await readFile(path.join(calm.outDir, `api/${lang}/unknown/${segment}/index.html`), 'utf8'),
          );
        }
      },
    );

    it("answers an unknown event id with the translated 404 from the store's key set, and a known one with its document", async () => {
      const p = await serveAt(target, calm, '2026-11-21T12:10:00Z');
      const missing = await get(p, '/api/events/2026-11-21-no-such-event?lang=ko');
      expect(missing.status).toBe(404);
      expect(missing.lang).toBe('ko');
      expect(missing.body.meta).toEqual({ lang: 'ko' });
      expect(missing.body.error.message).toContain('2026-11-21-no-such-event');
      const known = JSON.parse(await readFile(path.join(calm.outDir, EDGE_STORE_FILE), 'utf8')) as Record<
        string,
        string
      >;
      const id = Object.keys(known)
        .find((k) => k.startsWith('e:'))!
        .slice(2);
      const found = await get(p, `/api/events/${id}?lang=ko`);
      expect(found.status).toBe(200);
      expect(found.body.event.id).toBe(id);
    });
  });

  describe('a day with a recorded reset built at 23:50 UTC', () => {
    it('answers recorded_today at 23:55, past the 30 minutes a calm answer would hold', async () => {
      const p = await serveAt(target, resetDay, '2026-11-21T23:55:00Z');
      expect((await get(p, '/api/latest')).body).toMatchObject({
        reset: true,
        today: { state: 'recorded_today', date: '2026-11-21' },
      });
    });

    it("does not answer yesterday's reset at 00:05: today is unknown, the reset stays the latest one", async () => {
      const p = await serveAt(target, resetDay, '2026-11-22T00:05:00Z');
      const { body } = await get(p, '/api/latest');
      expect(body.reset).toBeNull();
      expect(body.today).toMatchObject({ state: 'unknown', date: '2026-11-22', event_ids: [] });
      expect(body.latestReset.id).toBe('sr-r-2026-11-21-a');
    });
  });
});

// The forecast's own freshness (issue #40): issued at 12:00, it holds until 13:00 whatever today's answer says; from
// then on every host answers /api/forecast, in every language, with the expired forecast, and the page's copies the
// edge serves then show no probability.
describe.each(TARGETS)('the forecast through the %s', (target) => {
  const file = async (key: string) => JSON.parse(await readFile(path.join(forecastDay.outDir, key), 'utf8'));

  it.each(['2026-09-08T12:05:00Z', '2026-09-08T12:59:59.999Z'])(
    'at %s answers the probabilities as issued, in every language',
    async (iso) => {
      const p = await serveAt(target, forecastDay, iso);
      for (const lang of LANGS) {
        const res = await get(p, `/api/forecast?lang=${lang}`);
        expect(res.status).toBe(200);
        expect(res.lang).toBe(lang);
        expect(res.body).toEqual(await file(`api/${lang}/forecast.json`));
        expect(res.body.probability_24h).toBeGreaterThan(0);
        expect(res.body.probability_48h).toBeGreaterThanOrEqual(res.body.probability_24h);
        expect(res.body.meta).toMatchObject({
          lang,
          generated_at: '2026-09-08T12:00:00Z',
          stale_after: '2026-09-08T13:00:00Z',
        });
      }
    },
  );

  it('at 13:30, past the forecast and before midnight, on a day with a recorded reset: today as built, the page with the expired forecast', async () => {
    const p = await serveAt(target, forecastDay, '2026-09-08T13:30:00Z');
    for (const lang of LANGS) {
      expect((await get(p, `/api/latest?lang=${lang}`)).body).toEqual(await file(`api/${lang}/latest.json`));
      expect((await get(p, `/api/latest?lang=${lang}`)).body.today.state).toBe('recorded_today');
      expect((await get(p, `/api/forecast?lang=${lang}`)).body).toEqual(
        await file(`api/${lang}/unknown/forecast.json`),
      );
      const html = await (await fetch(`${p.url}/${lang}/`)).text();
      expect(html).toBe(
        await readFile(path.join(forecastDay.outDir, `api/${lang}/unknown/forecast/index.html`), 'utf8'),
      );
      expect(html).toContain(`<p id="explanation">${(await file(`api/${lang}/latest.json`)).today.explanation}</p>`);
      expect(html).toContain(`<dd id="p24" class="big none">${translator(lang)('page:forecast.none')}</dd>`);
    }
  });

  // Just past stale_after, 3 days on (issue #40's reading), 10 days on (builds long stopped): the expired forecast.
  it.each(['2026-09-08T13:00:00.001Z', '2026-09-11T12:00:00Z', '2026-09-18T12:00:00Z'])(
    'at %s answers no probability, saying since when and why, in every language; the page shows none',
    async (iso) => {
      const p = await serveAt(target, forecastDay, iso);
      for (const lang of LANGS) {
        const res = await get(p, `/api/forecast?lang=${lang}`);
        expect(res.status).toBe(200);
        expect(res.lang).toBe(lang);
        expect(res.body).toEqual(await file(`api/${lang}/unknown/forecast.json`));
        const live = await file(`api/${lang}/forecast.json`);
        expect(res.body).toMatchObject({
          meta: live.meta,
          probability_24h: null,
          probability_48h: null,
          base_rate_24h: null,
          base_rate_48h: null,
          trailing_base_rate_30d_24h: null,
          trailing_base_rate_30d_48h: null,
          trailing_base_rate_90d_24h: null,
          trailing_base_rate_90d_48h: null,
          announced: null,
          tracker_watch: null,
          issued_at: '2026-09-08T12:00:00Z',
          sample_size: live.sample_size,
          last_global_reset_at: live.last_global_reset_at,
        });
        expect(res.body.explanation).toBe(
          translator(lang)('forecast:expired', {
            issued_at: '2026-09-08T12:00:00Z',
            since: '2026-09-08T13:00:00Z',
            hold_minutes: 60,
          }),
        );
        // The page the edge serves then (today's answer expired too) shows the expired forecast, no percentage.
        const html = await (await fetch(`${p.url}/${lang}/`)).text();
        const section = /<section id="forecast"[\s\S]*?<\/section>/.exec(html)![0];
        expect(section).toContain(`<dd id="p24" class="big none">${translator(lang)('page:forecast.none')}</dd>`);
        expect(section).toContain(`<dd id="p48" class="big none">${translator(lang)('page:forecast.none')}</dd>`);
        expect(section).toContain(`<p id="fc-explanation">${res.body.explanation}</p>`);
        expect(section).not.toMatch(/\d\s?%/);
      }
    },
  );
});

describe('the badge and the feeds', () => {
  // Issue #40, point 4: they quote no probability, so no copy of them can state one past the forecast's stale_after.
  // renderFollow is not given the forecast; here, the bytes of a build whose forecast has probabilities.
  it('quote no forecast probability, in any language, as built or as the edge serves them later', async () => {
    for (const lang of LANGS) {
      const forecast = JSON.parse(await readFile(path.join(forecastDay.outDir, `api/${lang}/forecast.json`), 'utf8'));
      expect(forecast.probability_24h).toBeGreaterThan(0);
      const numbers = [forecast.probability_24h, forecast.probability_48h].flatMap((p: number) => [
        String(p),
        `${Math.round(p * 100)}%`,
        `${Math.round(p * 100)} %`,
        `${(p * 100).toFixed(1)}%`,
      ]);
      const keys = ['badge.json', 'badge.svg', 'feed.atom', 'feed.json', 'calendar.ics'].flatMap((n) => [
        `api/${lang}/${n}`,
        ...(n.startsWith('badge') ? [`api/${lang}/unknown/${n}`] : []),
      ]);
      for (const key of keys) {
        const body = await readFile(path.join(forecastDay.outDir, key), 'utf8');
        for (const n of numbers) expect(body, `${key}: ${n}`).not.toContain(n);
        expect(body, key).not.toMatch(/probabilit/i);
        expect(body, key).not.toContain(forecast.explanation);
      }
    }
  });
});

describe('meta.stale_after', () => {
  it('is the instant the edge switches at, in the documents themselves', async () => {
    const calmDoc = JSON.parse(await readFile(path.join(calm.outDir, 'api/en/latest.json'), 'utf8'));
    const resetDoc = JSON.parse(await readFile(path.join(resetDay.outDir, 'api/en/status.json'), 'utf8'));
    expect(calmDoc.meta.stale_after).toBe('2026-11-21T12:30:00Z');
    expect(resetDoc.meta.stale_after).toBe('2026-11-22T00:00:00Z');
    const store = JSON.parse(await readFile(path.join(resetDay.outDir, EDGE_STORE_FILE), 'utf8'));
    expect(JSON.parse(store[EDGE_FRESHNESS_KEY]).stale_after).toBe(resetDoc.meta.stale_after);
  });

  it("is the forecast's own in the forecast, an hour after its issue, the instant the store names for it", async () => {
    for (const build of [calm, resetDay]) {
      const forecast = JSON.parse(await readFile(path.join(build.outDir, 'api/ko/forecast.json'), 'utf8'));
      const store = JSON.parse(await readFile(path.join(build.outDir, EDGE_STORE_FILE), 'utf8'));
      expect(Date.parse(forecast.meta.stale_after) - Date.parse(forecast.issued_at)).toBe(3_600_000);
      expect(forecast.issued_at).toBe(forecast.meta.generated_at);
      expect(JSON.parse(store[EDGE_FRESHNESS_KEY]).forecast_stale_after).toBe(forecast.meta.stale_after);
    }
  });
});
