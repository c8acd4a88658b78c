// Whom a reset reached and when it lands: read by a reviewer from each post's own words (data/reach-review.json).
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  attachReach,
  countsAsGlobal,
  isNarrowed,
  reachesPlan,
  reachOf,
  ReachReviewFileSchema,
} from '../../builder/model/reach.ts';
import type { Event } from '../../builder/model/schemas.ts';
import { translator } from '../../builder/render/i18n.ts';
import { renderEvent } from '../../builder/render/documents.ts';
import { DOCUMENT_SCHEMAS } from '../../builder/render/schemas.ts';
import { loadCuratedData, type CuratedData } from '../../builder/sources/archive.ts';

const DATA = new URL('../../data', import.meta.url).pathname;
const AFTER_REVIEW = new Date('2026-11-28T00:00:00Z');

describe('data/reach-review.json', () => {
  let curated: CuratedData;
  let review: ReturnType<typeof ReachReviewFileSchema.parse>;
  let events: Event[];
  beforeAll(async () => {
    curated = await loadCuratedData(DATA);
    review = ReachReviewFileSchema.parse(JSON.parse(await readFile(path.join(DATA, 'reach-review.json'), 'utf8')));
    events = attachReach(curated.events, curated.reach ?? {}, AFTER_REVIEW);
  });
  const byId = (id: string) => events.find((e) => e.id === id)!;

  it('reviews every reset in data/ (global resets and banked grants), and nothing else', () => {
    const resets = curated.events
      .filter((e) => e.type === 'global_reset' || e.type === 'banked_grant')
      .map((e) => e.id)
      .sort();
    expect(resets.length).toBeGreaterThan(50);
    expect(Object.keys(review.events).sort()).toEqual(resets);
    for (const e of events) {
      if (e.type === 'policy_change') expect(e.reach, e.id).toBeUndefined();
      else expect(e.reach?.reviewed, e.id).toBe(true);
    }
  });

  it("quotes each field from its event's evidence text, word for word", () => {
    const text = new Map(curated.events.map((e) => [e.id, e.evidence_text]));
    let quotes = 0;
    for (const [id, d] of Object.entries(review.events)) {
      for (const f of [d.plans, d.products, d.models, d.cohort, d.limits, d.landing]) {
        if (f === null) continue;
        expect(text.get(id), `${id}: ${f.quote}`).toContain(f.quote);
        quotes++;
      }
      if (d.landing !== null) expect(text.get(id), `${id}: ${d.landing.as_written}`).toContain(d.landing.as_written);
      expect(d.why.length, id).toBeGreaterThan(10);
    }
    expect(quotes).toBeGreaterThan(80);
  });

  it('reads the posts the way their words say (the examples of the rule)', () => {
    // "reseting the rate limit for all plus and pro users"
    expect(byId('ledger-2026-03-04-2130').reach!.plans.value).toEqual(['plus', 'pro']);
    // "reset across all paid plans"
    expect(byId('ledger-2026-05-16-1751').reach!.plans.value).toEqual(['all_paid']);
    // "You should be back to 100% weekly and 100% hourly limits"
    expect(byId('ledger-2026-05-31-1525').reach!.limits.value!.sort()).toEqual(['five_hour', 'weekly']);
    // "reset everyone's limits for gpt-5-codex"
    expect(byId('ledger-2025-09-17-0402').reach!.models.value).toEqual(['gpt-5-codex']);
    // "Added a banked reset to 500k users of ChatGPT Work and Codex"
    const cohort = byId('ledger-2026-07-12-2128').reach!;
    expect([cohort.cohort.value, cohort.products.value!.sort(), cohort.limits.value]).toEqual([
      500000,
      ['chatgpt_work', 'codex'],
      ['banked_reset'],
    ]);
    // "Hi. It is done." states nothing.
    const done = byId('ledger-2026-08-11-0027').reach!;
    expect([done.reviewed, done.plans.value, done.limits.value, done.landing.as_written]).toEqual([
      true,
      null,
      null,
      null,
    ]);
  });

  it('bounds the landing only where the words do: from the post, until the end of an exact window', () => {
    // "This should propagate to all users over the next 10 mins", posted 22:49:02
    expect(byId('ledger-2025-12-02-2249').reach!.landing).toMatchObject({
      from: '2025-12-02T22:49:02Z',
      until: '2025-12-02T22:59:02Z',
      as_written: 'over the next 10 mins',
    });
    // "Lands end of day": no time zone, no exact end.
    expect(byId('ledger-2026-09-05-0039').reach!.landing).toMatchObject({
      until: null,
      as_written: 'Lands end of day',
    });
    // Where data/ledger-review.json reads an announced window, the landing ends at the same instant as the event.
    for (const e of events) {
      const r = e.reach;
      if (r?.landing.until != null && e.effective_at !== null) expect(r.landing.until, e.id).toBe(e.effective_at);
    }
  });

  it('says "not stated" for a tracker record and for a build as of before the review', () => {
    const tracker: Event = {
      ...curated.events.find((e) => e.id === 'ledger-2026-05-16-1751')!,
      id: 'tracker-x',
      origin: 'service_resets',
      evidence_text: '',
    };
    const before = attachReach(
      [byId('ledger-2026-05-16-1751'), tracker],
      curated.reach ?? {},
      new Date('2026-11-26T23:59:59Z'),
    );
    for (const e of before)
      expect(reachOf(e)).toMatchObject({
        reviewed: false,
        plans: { value: null, quote: null },
        landing: { until: null },
      });
  });

  it('answers per plan: yes, not for this plan, or not stated', () => {
    const plusPro = reachOf(byId('ledger-2026-03-04-2130'));
    expect([reachesPlan(plusPro, 'plus'), reachesPlan(plusPro, 'business'), reachesPlan(plusPro, 'free')]).toEqual([
      'yes',
      'no',
      'no',
    ]);
    const paid = reachOf(byId('ledger-2026-05-16-1751'));
    expect([reachesPlan(paid, 'pro'), reachesPlan(paid, 'edu'), reachesPlan(paid, 'free')]).toEqual([
      'yes',
      'yes',
      'no',
    ]);
    const everyone = reachOf(byId('ledger-2026-07-25-1917'));
    expect(reachesPlan(everyone, 'free')).toBe('yes');
    expect(reachesPlan(reachOf(byId('ledger-2026-08-11-0027')), 'plus')).toBe('not_stated');
  });

  it('counts a reset as global unless its post narrows it to some plans, one model or a cohort', () => {
    const narrowed = events
      .filter((e) => e.type === 'global_reset' && isNarrowed(reachOf(e)))
      .map((e) => e.id)
      .sort();
    expect(narrowed).toEqual(['ledger-2025-09-17-0402', 'ledger-2026-03-04-2130', 'ledger-2026-03-08-0242']);
    expect(countsAsGlobal(byId('ledger-2026-05-16-1751'))).toBe(true);
    expect(countsAsGlobal(byId('ledger-2026-08-11-0027'))).toBe(true);
    expect(countsAsGlobal(byId('ledger-2026-07-12-2128'))).toBe(false);
  });

  it('renders the reach on the event document, labels translated, quotes as written', () => {
    const e = byId('ledger-2026-07-21-1647');
    const en = renderEvent(e, 'en', translator('en'));
    expect(en.reach).toMatchObject({
      reviewed: true,
      summary: 'all paid plans · Codex, ChatGPT Work · lands by 2026-07-21 17:47 UTC',
      plans: {
        value: ['all_paid'],
        label: 'all paid plans',
        quote: 'new usage reset for paid users of Codex and ChatGPT Work',
      },
      limits: { value: null, label: 'not stated', quote: null },
      landing: { from: '2026-07-21T16:47:15Z', until: '2026-07-21T17:47:15Z', as_written: 'Lands in the next hour' },
    });
    const ko = renderEvent(e, 'ko', translator('ko'));
    expect(ko.reach!.plans.label).toBe('모든 유료 요금제');
    expect(ko.reach!.landing.as_written).toBe('Lands in the next hour');
    expect(ko.reach!.limits.label).toBe('명시되지 않음');
    const doc = {
      meta: {
        lang: 'en',
        updated_at: null,
        api_version: '1',
        docs: '/api/openapi.json',
        license: 'x',
        license_url: '/api/license.txt',
        credits: [],
      },
      event: en,
    };
    expect(DOCUMENT_SCHEMAS.event.safeParse(doc).success).toBe(true);
    const policy = renderEvent(
      curated.events.find((x) => x.type === 'policy_change')!,
      'en',
      translator('en'),
    );
    expect(policy.reach).toBeNull();
    const unreviewed = renderEvent({ ...e, reach: undefined }, 'de', translator('de'));
    expect(unreviewed.reach).toMatchObject({
      reviewed: false,
      summary: 'noch nicht geprüft: wen es erreichte, ist nicht angegeben',
      plans: { value: null, label: 'nicht angegeben', quote: null },
    });
  });

  it('refuses a review whose quote is not in the post, naming the event', async () => {
    const dir = path.join(await mkdtemp(path.join(tmpdir(), 'rsa-reach-')), 'data');
    await cp(DATA, dir, { recursive: true });
    const file = path.join(dir, 'reach-review.json');
    const doc = JSON.parse(await readFile(file, 'utf8'));
    doc.events['ledger-2026-05-16-1751'].plans.quote = 'reset across all plans';
    await writeFile(file, JSON.stringify(doc));
    await expect(loadCuratedData(dir)).rejects.toThrow(
      /reach-review\.json: event ledger-2026-05-16-1751 quotes words its post does not have/,
    );
  });
});

describe("docs/data.md's counts of what the posts state", () => {
  it('match data/reach-review.json', async () => {
    const doc = (await readFile(new URL('../../docs/data.md', import.meta.url), 'utf8')).replace(/\s+/g, ' ');
    const { events } = ReachReviewFileSchema.parse(
      JSON.parse(await readFile(path.join(DATA, 'reach-review.json'), 'utf8')),
    );
    const all = Object.values(events);
    const n = all.length;
    const stated = (k: 'plans' | 'products' | 'models' | 'cohort' | 'limits' | 'landing') =>
      all.filter((d) => d[k] !== null).length;
    const pair = (k: Parameters<typeof stated>[0]) => `${stated(k)} / ${n - stated(k)}`;
    const bounded = all.filter((d) => d.landing?.within_minutes != null).length;
    expect(doc).toContain(
      `Stated / not stated, of ${n}: plans ${pair('plans')}, products ${pair('products')}, model ${pair('models')}, cohort ${pair('cohort')}, limits ${pair('limits')}, landing window ${pair('landing')} (${bounded} of them bounded exactly, with an \`until\`).`,
    );
  });
});

describe('the global-reset rule applied to today and the forecast', () => {
  it("a reset the post narrows to plus and pro is not today's global reset; an all-paid one is", async () => {
    const { computeToday } = await import('../../builder/model/status.ts');
    const { computeForecast } = await import('../../builder/model/forecast.ts');
    const curated = await loadCuratedData(DATA);
    const reviewedAsOf = (at: string) => attachReach(curated.events, curated.reach ?? {}, new Date(at));
    const check = (at: string) => [
      {
        source: 'tracker',
        kind: 'reset_tracker' as const,
        url: 'https://example.test',
        ok: true,
        http_status: 200,
        latency_ms: 1,
        items_read: 1,
        checked_at: at,
        detail: { code: 'checks.ok', params: {} },
      },
    ];
    // 2026-03-04 21:30 "reseting the rate limit for all plus and pro users" (read as of after the review).
    const events = reviewedAsOf('2026-11-28T00:00:00Z').filter(
      (e) =>
        Date.parse(e.announced_at!.length === 10 ? `${e.announced_at}T00:00:00Z` : e.announced_at!) <=
        Date.parse('2026-03-04T23:00:00Z'),
    );
    expect(computeToday(events, check('2026-03-04T22:50:00Z'), new Date('2026-03-04T23:00:00Z')).state).toBe(
      'no_verified_reset',
    );
    // The same day without the reach (an unreviewed record) counts it, as every global_reset did before the rule.
    const unreviewed = events.map(({ reach: _r, ...e }) => e);
    expect(computeToday(unreviewed, check('2026-03-04T22:50:00Z'), new Date('2026-03-04T23:00:00Z')).state).toBe(
      'recorded_today',
    );
    // 2026-05-16 17:51 "reset across all paid plans" counts.
    const may = reviewedAsOf('2026-11-28T00:00:00Z').filter(
      (e) => e.announced_at !== null && e.announced_at <= '2026-05-16T18:00:00Z',
    );
    expect(computeToday(may, check('2026-05-16T17:55:00Z'), new Date('2026-05-16T18:00:00Z')).state).toBe(
      'recorded_today',
    );
    // The forecast reads only what counts: its sample (every global reset known) holds the three narrowed ones
    // (2025-09-17, 2026-03-04, 2026-03-08) in a build as of before the review, and not after it.
    const upTo = (list: Event[]) => list.filter((e) => e.announced_at !== null && e.announced_at < '2026-04-01');
    const asOf = new Date('2026-04-01T00:00:00Z');
    const before = computeForecast(upTo(reviewedAsOf('2026-11-26T00:00:00Z')), asOf).sample_size;
    const after = computeForecast(upTo(reviewedAsOf('2026-11-28T00:00:00Z')), asOf).sample_size;
    expect(before - after).toBe(3);
  });
});
