// What every source says of an event, and the questions disagreements leave: the rules of model/agreement.ts on the
// real posts where the two trackers and the ledger part ways (test/fixtures/real-upstreams/README.md).
import { describe, expect, it } from 'vitest';
import {
  computeAgreement,
  countsForForecast,
  MISSING_AFTER_MS,
  type TrackerHealth,
} from '../../builder/model/agreement.ts';
import { mergeEvents } from '../../builder/model/events.ts';
import type { TrackerReview } from '../../builder/model/reconcile.ts';
import { EventSchema, type Event, type SourceLabel } from '../../builder/model/schemas.ts';

const post = (id: string) => `https://x.com/thsottiaux/status/${id}`;

function record(
  origin: Event['origin'],
  id: string,
  type: Event['type'],
  postId: string,
  at: string,
  text = '',
): Event {
  return EventSchema.parse({
    id,
    type,
    status: 'archived',
    reason: type === 'banked_grant' ? 'banked' : 'other',
    origin,
    time_precision: 'second',
    time_basis: 'announcement',
    announced_at: at,
    observed_at: null,
    effective_at: null,
    evidence_text: text || `post ${postId}`,
    sources: [{ platform: 'X', url: post(postId) }],
  });
}

const label = (postId: string, at: string, reads_as: SourceLabel['reads_as'], words: string): SourceLabel => ({
  source: 'reset-timeline',
  record_id: postId,
  post_id: postId,
  at,
  label: words,
  reads_as,
  quote: '',
});

const healthy = (asOf: string, from = '2025-09-17T00:00:00Z'): TrackerHealth[] => [
  { origin: 'service_resets', last_good_check_at: asOf, covers_from: from },
  { origin: 'reset_timeline', last_good_check_at: asOf, covers_from: from },
];

function agree(
  records: Event[],
  labels: SourceLabel[],
  asOf: string,
  reviews: TrackerReview[] = [],
  health = healthy(asOf),
) {
  return computeAgreement({ merged: mergeEvents(records), records, labels, reviews, health, asOf: new Date(asOf) });
}

// 2026-09-26, after the curated archive ends: "Resets all propagated. That will be all. Have a fantastic weekend."
const P0926 = '2103911959544610829';
const AT0926 = '2026-09-26T18:17:54Z';
// 2026-07-12: "Added a banked reset to 500k users of ChatGPT Work and Codex." codex-resets.com: regular; codex-reset.com: credits.
const P0712 = '2076418567143408112';
const AT0712 = '2026-07-12T21:28:59Z';

describe('agreement across sources', () => {
  it('two trackers recording the same post are one event that both record, and they agree', () => {
    const sr = record('service_resets', `sr-${P0926}`, 'global_reset', P0926, AT0926);
    const rt = record('reset_timeline', `rt-${P0926}`, 'global_reset', P0926, AT0926);
    const { events, signals } = agree(
      [sr, rt],
      [label(P0926, AT0926, 'global_reset', 'reset/hard/announced/live')],
      '2026-09-26T19:00:00Z',
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.agreement).toBe('agreed');
    expect(new Set(events[0]!.recorded_by!.map((r) => r.origin))).toEqual(
      new Set(['service_resets', 'reset_timeline']),
    );
    expect(signals).toEqual([]);
  });

  it('one tracker alone is a record, not evidence', () => {
    const sr = record('service_resets', `sr-${P0926}`, 'global_reset', P0926, AT0926);
    const { events } = agree([sr], [], '2026-09-26T19:00:00Z', [], [healthy('2026-09-26T19:00:00Z')[0]!]);
    expect(events[0]!.agreement).toBe('single_source');
  });

  it('finds the 07-12 banked grant the first tracker calls regular from the trackers alone, and keeps it out of the forecast', () => {
    const sr = record('service_resets', `sr-${P0712}`, 'global_reset', P0712, AT0712);
    const rt = record('reset_timeline', `rt-${P0712}`, 'banked_grant', P0712, AT0712);
    const { events, signals } = agree(
      [sr, rt],
      [label(P0712, AT0712, 'banked_grant', 'credits/archive')],
      '2026-07-13T00:00:00Z',
    );
    const global = events.find((e) => e.type === 'global_reset')!;
    expect(global.agreement).toBe('disputed');
    expect(countsForForecast(global)).toBe(false);
    expect(signals).toHaveLength(1);
    expect(signals[0]).toMatchObject({ kind: 'type_disagreement', id: `type-disagreement-${P0712}` });
    // Which source says what, in their own words.
    expect(signals[0]!.title).toContain('codex-resets.com: regular');
    expect(signals[0]!.title).toContain('codex-reset.com: credits/archive');
  });

  it('a review decision on the post settles the disagreement: no question left, but never "agreed"', () => {
    const sr = record('service_resets', `sr-${P0712}`, 'global_reset', P0712, AT0712);
    const rt = record('reset_timeline', `rt-${P0712}`, 'banked_grant', P0712, AT0712);
    const review: TrackerReview = {
      post_id: P0712,
      decision: 'type',
      type: 'banked_grant',
      why: 'a banked grant',
      evidence: ['"Added a banked reset to 500k users of ChatGPT Work and Codex."'],
      reviewed_by: 'test',
      reviewed_at: '2026-07-12',
    };
    const { events, signals } = agree(
      [sr, rt],
      [label(P0712, AT0712, 'banked_grant', 'credits')],
      '2026-07-13T00:00:00Z',
      [review],
    );
    expect(events.every((e) => e.agreement === 'reviewed')).toBe(true);
    expect(signals).toEqual([]);
  });

  it('curated history keeps its type and the forecast counts it when a tracker calls the post a boost', () => {
    // 2026-04-07, ledger: a global reset; codex-reset.com: `boost`.
    const p = '2041655710346572085';
    const ledger = record('ledger', 'ledger-2026-04-07', 'global_reset', p, '2026-04-07T17:00:00Z');
    const { events, signals } = agree(
      [ledger],
      [label(p, '2026-04-07T17:00:00Z', 'not_a_reset', 'boost')],
      '2026-09-11T15:00:00Z',
    );
    expect(events[0]!.agreement).toBe('disputed');
    expect(countsForForecast(events[0]!)).toBe(true);
    expect(signals.map((s) => s.kind)).toEqual(['type_disagreement']);
  });

  it('an unconfirmed record takes no side', () => {
    const p = '2093801758665715784';
    const at = '2026-08-29T20:43:34Z';
    const ledger = record('ledger', 'ledger-2026-08-29', 'global_reset', p, at);
    const sr = record('service_resets', `sr-${p}`, 'global_reset', p, at);
    const { events, signals } = agree(
      [ledger, sr],
      [label(p, at, 'unconfirmed', 'reset/none/live')],
      '2026-09-11T15:00:00Z',
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.agreement).toBe('agreed');
    expect(events[0]!.recorded_by!.map((r) => r.reads_as)).toContain('unconfirmed');
    expect(signals).toEqual([]);
  });

  it('asks about a reset one healthy tracker lacks only after the delay, and only where its list reaches', () => {
    const sr = record('service_resets', `sr-${P0926}`, 'global_reset', P0926, AT0926);
    const at = Date.parse(AT0926);
    const health = (good: number, from = '2025-09-17T00:00:00Z'): TrackerHealth[] => [
      { origin: 'service_resets', last_good_check_at: new Date(good).toISOString(), covers_from: from },
      { origin: 'reset_timeline', last_good_check_at: new Date(good).toISOString(), covers_from: from },
    ];
    const late = at + MISSING_AFTER_MS + 60_000;
    const asked = agree([sr], [], new Date(late).toISOString(), [], health(late));
    expect(asked.signals.map((s) => s.kind)).toEqual(['tracker_missing']);
    expect(asked.signals[0]!.title).toContain('codex-reset.com does not list');
    const early = at + MISSING_AFTER_MS - 60_000;
    expect(agree([sr], [], new Date(early).toISOString(), [], health(early)).signals).toEqual([]);
    // A tracker whose list starts after the reset cannot be said to lack it.
    expect(agree([sr], [], new Date(late).toISOString(), [], health(late, '2026-10-01T00:00:00Z')).signals).toEqual([]);
  });

  it("one source's observation of a reset and its post about it are one reset (codex-reset.com, 2026-09-08)", () => {
    const observed = EventSchema.parse({
      ...record(
        'reset_timeline',
        'rt-2097043464538264003',
        'global_reset',
        '2097043464538264003',
        '2026-09-08T01:34:00Z',
      ),
      time_basis: 'observation',
      announced_at: null,
      observed_at: '2026-09-08T01:34:00Z',
    });
    const posted = record(
      'reset_timeline',
      'rt-2097174560412246215',
      'global_reset',
      '2097174560412246215',
      '2026-09-08T04:05:53Z',
    );
    expect(mergeEvents([observed, posted])).toHaveLength(1);
    // Two posts of one source an hour apart are two.
    const other = record(
      'reset_timeline',
      'rt-2097174560412246216',
      'global_reset',
      '2097174560412246216',
      '2026-09-08T05:05:53Z',
    );
    expect(mergeEvents([posted, other])).toHaveLength(2);
  });

  it('is one event for one post even when a source saw it hours after it was made', () => {
    const ledger = record('ledger', 'ledger-p', 'global_reset', P0926, AT0926);
    const seen = EventSchema.parse({
      ...record('service_resets', 'sr-observed', 'global_reset', P0926, '2026-09-26T23:30:00Z'),
      time_basis: 'observation',
      announced_at: null,
      observed_at: '2026-09-26T23:30:00Z',
    });
    expect(mergeEvents([ledger, seen])).toHaveLength(1);
  });

  it('never merges resets of different days, whatever the sources', () => {
    // An hour apart across midnight, from two sources: still two days, two resets.
    const a = record('ledger', 'ledger-a', 'global_reset', '2098612714704891959', '2026-09-11T23:40:00Z');
    const b = record('service_resets', 'sr-b', 'global_reset', '2097174560412246215', '2026-09-12T00:20:00Z');
    expect(mergeEvents([a, b])).toHaveLength(2);
    const c = record('service_resets', 'sr-c', 'global_reset', '2097174560412246215', '2026-09-11T23:50:00Z');
    expect(mergeEvents([a, c])).toHaveLength(1);
  });
});
