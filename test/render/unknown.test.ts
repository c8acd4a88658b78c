// The unknown variants: what latest and status say once a build's answer no longer holds, and the forecast once past
// its own stale_after.
import { describe, expect, it } from 'vitest';
import { expiredForecastKey, LANGS, unknownVariantKey } from '../../builder/contract.ts';
import { unknownVariantDates, unknownVariants } from '../../builder/model/freshness.ts';
import { renderExpiredForecasts, renderUnknownVariants } from '../../builder/render/unknown.ts';
import { translator } from '../../builder/render/i18n.ts';
import type { OutputDocument } from '../../builder/render/output.ts';
import { createTempBuild } from '../helpers/build.ts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

describe('renderUnknownVariants', () => {
  it('replaces today by unknown for each date, keeps meta and the past, in every language', async () => {
    const b = await createTempBuild();
    await b.build('2026-11-21T12:00:00Z');
    const docs: OutputDocument[] = [];
    for (const lang of LANGS) {
      for (const endpoint of ['latest', 'status']) {
        const key = `api/${lang}/${endpoint}.json`;
        docs.push({
          key,
          body: await readFile(path.join(b.outDir, key), 'utf8'),
          contentType: 'application/json; charset=utf-8',
          contentLanguage: lang,
          cacheControl: 'public, max-age=30',
          phase: 2,
        });
      }
    }
    const dates = unknownVariantDates(new Date('2026-11-21T12:00:00Z'));
    expect(dates).toEqual(['2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24']);
    const variants = renderUnknownVariants(docs, unknownVariants(new Date('2026-11-21T12:00:00Z')));
    expect(variants.map((v) => v.key).sort()).toEqual(
      LANGS.flatMap((l) =>
        [...dates, 'stopped'].flatMap((d) => (['latest', 'status'] as const).map((e) => unknownVariantKey(l, d, e))),
      ).sort(),
    );
    const stopped = JSON.parse(variants.find((v) => v.key === 'api/en/unknown/stopped/status.json')!.body);
    expect(stopped.today).toMatchObject({ date: null, state: 'unknown', reset: null });
    const de = JSON.parse(variants.find((v) => v.key === 'api/de/unknown/2026-11-22/latest.json')!.body);
    const live = JSON.parse(docs.find((d) => d.key === 'api/de/latest.json')!.body);
    expect(de.reset).toBeNull();
    expect(de.today).toMatchObject({
      date: '2026-11-22',
      state: 'unknown',
      reset: null,
      event_ids: [],
      last_good_check_at: live.today.last_good_check_at,
    });
    expect(de.today.explanation).not.toBe(live.today.explanation);
    // This build (no reset source configured) was unknown already: its own date's variant gives the build's own reason,
    // and the next day's, first served at midnight, says the answer is out of date since 30 minutes after the build.
    expect(live.today.state).toBe('unknown');
    expect(live.meta.stale_after).toBe(live.meta.generated_at);
    const same = JSON.parse(variants.find((v) => v.key === 'api/de/unknown/2026-11-21/latest.json')!.body);
    expect(same.today.explanation).toBe(live.today.explanation);
    expect(de.today.explanation).toBe(
      translator('de')('common:state.unknown_expired', { since: '2026-11-21T12:30:00Z' }),
    );
    expect(de.meta).toEqual(live.meta);
    expect(de.latestReset).toEqual(live.latestReset);
    expect(variants.find((v) => v.key.startsWith('api/ja/'))?.contentLanguage).toBe('ja');
  });
});

describe('renderExpiredForecasts', () => {
  it('withholds every number about the next 24/48 hours, keeps the past, and says since when and why, in every language', async () => {
    // The bundled history at 2026-09-08T12:00Z gives a forecast with probabilities (issue #40's measurement).
    const b = await createTempBuild();
    await b.build('2026-09-08T12:00:00Z');
    const docs: OutputDocument[] = [];
    for (const lang of LANGS) {
      const key = `api/${lang}/forecast.json`;
      docs.push({
        key,
        body: await readFile(path.join(b.outDir, key), 'utf8'),
        contentType: 'application/json; charset=utf-8',
        contentLanguage: lang,
        cacheControl: 'public, max-age=30',
        phase: 2,
      });
    }
    const expired = renderExpiredForecasts(docs);
    expect(expired.map((d) => d.key)).toEqual(LANGS.map((l) => expiredForecastKey(l)));
    for (const lang of LANGS) {
      const live = JSON.parse(docs.find((d) => d.contentLanguage === lang)!.body);
      const doc = JSON.parse(expired.find((d) => d.contentLanguage === lang)!.body);
      expect(live.probability_24h).toBeGreaterThan(0);
      expect(live.meta.stale_after).toBe('2026-09-08T13:00:00Z');
      expect(doc).toEqual({
        ...live,
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
        explanation: translator(lang)('forecast:expired', {
          issued_at: '2026-09-08T12:00:00Z',
          since: '2026-09-08T13:00:00Z',
          hold_minutes: 60,
        }),
      });
      // The sentence names both instants and quotes no probability.
      expect(doc.explanation).toContain('2026-09-08T13:00:00Z');
      expect(doc.explanation).toContain('2026-09-08T12:00:00Z');
      expect(doc.explanation).not.toMatch(/%/);
    }
  });
});
