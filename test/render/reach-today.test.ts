// /api/latest and /api/status say whom today's resets reached, per plan, and until when one is still landing, from
// the posts' words as reviewed in data/reach-review.json.
import { beforeAll, describe, expect, it } from 'vitest';
import { computeAccuracy } from '../../builder/model/accuracy.ts';
import { knownBy, mergeEvents } from '../../builder/model/events.ts';
import { attachReach } from '../../builder/model/reach.ts';
import type { Event, SourceCheck } from '../../builder/model/schemas.ts';
import { computeLatest, computeToday } from '../../builder/model/status.ts';
import { renderApi, type RenderInput } from '../../builder/render/documents.ts';
import { renderUnknownVariants } from '../../builder/render/unknown.ts';
import { renderPages } from '../../builder/render/page.tsx';
import { renderFollow } from '../../builder/render/follow.ts';
import { pageKey } from '../../builder/contract.ts';
import { planNotifications } from '../../builder/notify/plan.ts';
import { loadCuratedData } from '../../builder/sources/archive.ts';

const DATA = new URL('../../data', import.meta.url).pathname;
let reviewed: Event[] = [];
beforeAll(async () => {
  const curated = await loadCuratedData(DATA);
  // Read as reviewed (the decisions date from 2026-11-27), replayed on past days.
  reviewed = mergeEvents(attachReach(curated.events, curated.reach ?? {}, new Date('2026-11-28T00:00:00Z')));
});

const goodCheck = (at: string): SourceCheck => ({
  source: 'tracker',
  kind: 'reset_tracker',
  url: 'https://tracker.test',
  ok: true,
  http_status: 200,
  latency_ms: 5,
  items_read: 1,
  checked_at: at,
  detail: { code: 'checks.ok', params: {} },
});

function build(at: string, upcoming: RenderInput['upcoming'] = null) {
  const asOf = new Date(at);
  const events = reviewed.filter((e) => knownBy(e, asOf));
  const checks = [goodCheck(new Date(asOf.getTime() - 5 * 60_000).toISOString())];
  const input: RenderInput = {
    asOf,
    events,
    today: computeToday(events, checks, asOf),
    ...computeLatest(events, asOf),
    checks,
    upstreamStatus: null,
    signals: [],
    forecast: {
      probability_24h: null,
      probability_48h: null,
      base_rate_24h: null,
      base_rate_48h: null,
      sample_size: 0,
      model_version: 'poisson-v1',
      explanation: { code: 'insufficient_data', params: {} },
      last_global_reset_at: null,
    },
    accuracy: computeAccuracy([], [], asOf),
    archives: [],
    upcoming,
  };
  const docs = renderApi(input);
  const doc = (key: string) => JSON.parse(docs.find((d) => d.key === key)!.body);
  return { docs, doc, input };
}

describe("today's reach per plan", () => {
  it('while landing: "Lands in the next hour" posted 16:47:15 for paid users is propagating until 17:47 UTC', () => {
    const { doc } = build('2026-07-21T17:00:00Z');
    const latest = doc('api/en/latest.json');
    expect(latest.today_reach).toEqual({
      event_ids: ['ledger-2026-07-21-1647'],
      plans: { free: 'no', go: 'yes', plus: 'yes', pro: 'yes', business: 'yes', enterprise: 'yes', edu: 'yes' },
      summary: 'all paid plans · Codex, ChatGPT Work · lands by 2026-07-21 17:47 UTC',
      propagating_until: '2026-07-21T17:47:15Z',
      note: 'propagating until 17:47 UTC',
    });
    // Not landed yet: today's state does not count it before its window's end (docs/forecast.md).
    expect(latest.reset).toBe(false);
    expect(doc('api/ko/status.json').today_reach.note).toBe('17:47 UTC까지 적용 중');
    expect(doc('api/de/latest.json').today_reach.note).toBe('wird bis 17:47 UTC verteilt');
  });

  it("once landed: the reset is today's, no longer propagating", () => {
    const { doc } = build('2026-07-21T18:00:00Z');
    const latest = doc('api/en/latest.json');
    expect(latest.reset).toBe(true);
    expect(latest.today_reach).toMatchObject({
      event_ids: ['ledger-2026-07-21-1647'],
      propagating_until: null,
      note: null,
    });
  });

  it('a reset for plus and pro only: yes for plus, not for business, and today has no global reset', () => {
    const { doc } = build('2026-03-04T23:00:00Z');
    const latest = doc('api/en/latest.json');
    expect(latest.reset).toBe(false);
    expect(latest.today_reach.plans).toMatchObject({ plus: 'yes', pro: 'yes', business: 'no', free: 'no' });
  });

  it('a post that names no plan: not stated for every plan', () => {
    const { doc } = build('2026-08-11T01:00:00Z');
    const status = doc('api/en/status.json');
    expect(status.reset).toBe(true);
    expect(Object.values(status.today_reach.plans)).toEqual(Array(7).fill('not_stated'));
  });

  it('a day without a reset: null; and the unknown answer never repeats it', () => {
    expect(build('2026-07-22T12:00:00Z').doc('api/en/latest.json').today_reach).toBeNull();
    const { docs } = build('2026-07-21T17:00:00Z');
    const unknown = renderUnknownVariants(docs, [
      { date: '2026-07-22', served_from: '2026-07-22T00:00:00Z' },
      { date: null, served_from: '2026-07-25T00:00:00Z' },
    ]);
    for (const d of unknown) expect(JSON.parse(d.body).today_reach, d.key).toBeNull();
  });

  it('a global reset landing or announced: the banked-reset warning restates it, in every language; otherwise none', () => {
    const landing = build('2026-07-21T17:00:00Z').doc;
    expect(landing('api/en/latest.json').banked_reset_warning).toEqual({
      kind: 'landing',
      at: '2026-07-21T17:47:15Z',
      note: 'A global reset is landing until 17:47 UTC: using a banked reset now may waste it.',
    });
    expect(landing('api/ko/status.json').banked_reset_warning.note).toBe(
      '전체 리셋이 17:47 UTC까지 적용 중입니다: 지금 적립형 리셋을 쓰면 낭비될 수 있습니다.',
    );
    const upcoming = {
      id: 'sr-next',
      upstream_id: 'next',
      type: 'global_reset' as const,
      announced_at: '2026-07-22T11:00:00Z',
      scheduled_for: '2026-07-22T17:00:00Z',
      text: 'Reset at 17:00 UTC.',
      source: null,
      first_seen_at: '2026-07-22T11:05:00Z',
    };
    const announced = build('2026-07-22T12:00:00Z', upcoming).doc('api/en/latest.json');
    expect(announced.banked_reset_warning).toEqual({
      kind: 'announced',
      at: '2026-07-22T17:00:00Z',
      note: 'A global reset is announced for 17:00 UTC: using a banked reset now may waste it.',
    });
    expect(
      build('2026-07-22T12:00:00Z', { ...upcoming, scheduled_for: null }).doc('api/de/latest.json').banked_reset_warning
        .note,
    ).toBe('Ein globaler Reset ist angekündigt: Einen gutgeschriebenen Reset jetzt zu nutzen, kann ihn verschwenden.');
    // An announced banked grant is not a global reset: nothing to warn about.
    expect(
      build('2026-07-22T12:00:00Z', { ...upcoming, type: 'banked_grant' }).doc('api/en/latest.json')
        .banked_reset_warning,
    ).toBeNull();
    // Landed: no longer.
    expect(build('2026-07-21T18:00:00Z').doc('api/en/latest.json').banked_reset_warning).toBeNull();
  });
});

describe('the page, feeds and calendar say whom a reset reached', () => {
  it("the page: today's reach, until when it lands, the banked-reset warning, and the latest reset's reach", () => {
    const { docs, input } = build('2026-07-21T17:00:00Z');
    const pages = new Map(renderPages({ asOf: input.asOf, docs, events: input.events }).map((d) => [d.key, d]));
    const en = pages.get(pageKey('en'))!.body;
    expect(en).toContain(
      '<p id="today-reach">all paid plans · Codex, ChatGPT Work · lands by 2026-07-21 17:47 UTC · propagating until 17:47 UTC</p>',
    );
    expect(en).toContain(
      '<p id="banked-warning">A global reset is landing until 17:47 UTC: using a banked reset now may waste it.</p>',
    );
    // The latest recorded reset (2026-07-18 "for all paid users for Codex and ChatGPT Work") with its reach.
    expect(en).toContain('<p class="reach">all paid plans · Codex, ChatGPT Work</p>');
    expect(pages.get(pageKey('ja'))!.body).toContain('全有料プラン');
  });

  it('feeds and calendar entries carry the reach summary after the event summary, translated', () => {
    const { input } = build('2026-07-21T18:00:00Z');
    const follow = renderFollow({
      events: input.events,
      upcoming: null,
      today: input.today,
      publicUrl: 'https://api.example.org',
    });
    const body = (key: string) => follow.find((d) => d.key.endsWith(key))!.body;
    const json = JSON.parse(body('en/feed.json')) as { items: { id: string; summary: string }[] };
    const item = json.items.find((i) => i.id.includes('ledger-2026-07-21-1647'))!;
    expect(item.summary).toMatch(/ — all paid plans · Codex, ChatGPT Work · lands by 2026-07-21 17:47 UTC$/);
    expect(body('de/calendar.ics')).toContain('alle bezahlten Tarife');
  });

  it('a reset notification says whom it reached, or that an unreviewed record does not say', () => {
    const asOf = new Date('2026-07-21T18:00:00Z');
    const reviewedReset = { ...reviewed.find((e) => e.id === 'ledger-2026-07-21-1647')!, origin: 'curated' as const };
    const { reach: _r, ...trackerOnly } = {
      ...reviewedReset,
      id: 'sr-tracker',
      origin: 'service_resets' as const,
      same_as: [],
      sources: [],
    };
    const today = computeToday([reviewedReset], [], asOf);
    const plan = planNotifications({ sent: [], failed: [] }, [reviewedReset, trackerOnly], null, today, asOf, {
      channels: ['a'],
      lang: 'en',
      publicUrl: 'https://api.example.org',
    });
    const summary = (id: string) => plan.find((d) => d.message.id === id)!.message.summary;
    expect(summary('ledger-2026-07-21-1647')).toMatch(
      / — all paid plans · Codex, ChatGPT Work · lands by 2026-07-21 17:47 UTC$/,
    );
    // The tracker's record carries its credit, worded as codex-resets.com asks; the ledger's needs none.
    expect(summary('sr-tracker')).toMatch(
      / — not reviewed yet: whom it reached is not stated Data: codex-resets\.com \(https:\/\/codex-resets\.com\/\)$/,
    );
  });
});
