import { describe, expect, it } from 'vitest';
import { testEvent } from '../helpers/events.ts';
import {
  MAX_PROBABILITY,
  MIN_PROBABILITY,
  MIN_SAMPLE_RESETS,
  MODEL_VERSION,
  computeForecast,
} from '../../builder/model/forecast.ts';
import { checkpointAtOrBefore } from '../../builder/model/climatology.ts';
import type { Event, Reason } from '../../builder/model/schemas.ts';

const ev = testEvent;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
/** `n` global resets `everyDays` apart, the last at `lastAt`. */
function regular(n: number, everyDays: number, lastAt: string, reason: Reason = 'other'): Event[] {
  const last = Date.parse(lastAt);
  return Array.from({ length: n }, (_, i) =>
    ev(iso(last - (n - 1 - i) * everyDays * 86_400_000), 'global_reset', reason),
  );
}

const asOf = new Date('2026-06-01T06:00:00Z');

describe('computeForecast', () => {
  it('returns null probabilities (never 0) below the minimum sample, with the too-little-data explanation', () => {
    const f = computeForecast(regular(MIN_SAMPLE_RESETS - 1, 5, '2026-05-30T12:00:00Z'), asOf);
    expect(f.probability_24h).toBeNull();
    expect(f.probability_48h).toBeNull();
    expect(f.base_rate_24h).toBeNull();
    expect(f.sample_size).toBe(MIN_SAMPLE_RESETS - 1);
    expect(f.explanation.code).toBe('insufficient_data');
    expect(f.explanation.params).toMatchObject({ sample_size: MIN_SAMPLE_RESETS - 1, min_sample: MIN_SAMPLE_RESETS });
    expect(f.last_global_reset_at).toBe('2026-05-30T12:00:00Z');
  });

  it('returns null when the sample is large but packed into less than the minimum history', () => {
    const f = computeForecast(regular(20, 1, '2026-05-31T00:00:00Z'), asOf);
    expect(f.sample_size).toBe(20);
    expect(f.probability_24h).toBeNull();
  });

  it('returns null with no events at all', () => {
    const f = computeForecast([], asOf);
    expect(f).toMatchObject({
      probability_24h: null,
      probability_48h: null,
      sample_size: 0,
      last_global_reset_at: null,
    });
  });

  it('publishes probabilities once the minimum sample is reached', () => {
    const f = computeForecast(regular(MIN_SAMPLE_RESETS, 5, '2026-05-30T12:00:00Z'), asOf);
    expect(f.probability_24h).not.toBeNull();
    // The shipped model is the one research/ selects (npm run backtest): a trailing 90-day Poisson rate, and it says so.
    expect(f.model_version).toBe(MODEL_VERSION);
    expect(f.model_version).toBe('poisson-v1');
    expect(f.explanation.code).toBe('probability_poisson');
    expect(f.explanation.params).toMatchObject({
      sample_size: MIN_SAMPLE_RESETS,
      days_since_last: 1.8,
      trailing_days: 90,
      probability_24h: Math.round(f.probability_24h! * 100),
    });
  });

  it('ignores banked grants and policy notes entirely', () => {
    const resets = regular(12, 4, '2026-05-29T00:00:00Z');
    const noise = [
      ev('2026-05-31T23:00:00Z', 'banked_grant'),
      ev('2026-06-01T05:00:00Z', 'policy_change'),
      ev('2026-05-20T10:00:00Z', 'banked_grant'),
    ];
    const a = computeForecast(resets, asOf);
    const b = computeForecast([...resets, ...noise], asOf);
    expect(b).toEqual(a);
    expect(computeForecast(noise, asOf).sample_size).toBe(0);
  });

  it('does not look ahead: events after asOf change nothing', () => {
    const resets = regular(12, 4, '2026-05-29T00:00:00Z');
    const a = computeForecast(resets, asOf);
    const b = computeForecast(
      [...resets, ev('2026-06-01T06:00:01Z'), ev('2026-06-02T00:00:00Z', 'global_reset', 'incident')],
      asOf,
    );
    expect(b).toEqual(a);
    // An event exactly at asOf is known.
    expect(computeForecast([...resets, ev('2026-06-01T06:00:00Z')], asOf).sample_size).toBe(13);
  });

  it('keeps every probability strictly inside (0, 1), 48h at least 24h', () => {
    const scenarios: Event[][] = [
      regular(12, 15, '2026-01-01T00:00:00Z'), // five months of silence since the last reset
      regular(40, 0.25, '2026-06-01T05:59:00Z').concat(regular(10, 30, '2026-05-01T00:00:00Z')), // a burst right now
      regular(15, 7, '2026-05-31T00:00:00Z', 'incident'),
    ];
    for (const events of scenarios) {
      {
        const f = computeForecast(events, asOf);
        expect(f.probability_24h).not.toBeNull();
        for (const p of [f.probability_24h!, f.probability_48h!]) {
          expect(p).toBeGreaterThanOrEqual(MIN_PROBABILITY);
          expect(p).toBeLessThanOrEqual(MAX_PROBABILITY);
          expect(p > 0 && p < 1).toBe(true);
        }
        expect(f.probability_48h!).toBeGreaterThanOrEqual(f.probability_24h!);
      }
    }
  });

  it('forecasts more after a burst than after months of silence', () => {
    const old = regular(12, 10, '2026-01-15T00:00:00Z');
    const quiet = computeForecast(old, asOf);
    const busy = computeForecast([...old, ...regular(6, 2, '2026-05-31T12:00:00Z')], asOf);
    expect(busy.probability_24h!).toBeGreaterThan(quiet.probability_24h!);
  });

  it('has no incident stratum: the reason of a reset changes nothing', () => {
    const history = [
      ...regular(8, 6, '2026-05-20T00:00:00Z'),
      ...regular(4, 0.5, '2026-03-02T00:00:00Z', 'incident'),
      ev('2026-03-20T00:00:00Z'),
    ];
    const afterIncident = computeForecast([...history, ev('2026-06-01T00:00:00Z', 'global_reset', 'incident')], asOf);
    const afterOther = computeForecast([...history, ev('2026-06-01T00:00:00Z', 'global_reset', 'launch')], asOf);
    expect(afterIncident.probability_24h).toBe(afterOther.probability_24h);
  });

  it('is the trailing Poisson rate: resets per day over the observed span, as the chance of at least one', () => {
    const f = computeForecast(regular(12, 4, '2026-05-29T00:00:00Z'), asOf);
    expect(f.model_version).toBe('poisson-v1');
    // 12 resets 4 days apart, the first 47.25 days before asOf (< 90 days, so the whole history is the window).
    // The first reset opens the observation period, so 11 resets in 47.25 days.
    expect(f.probability_24h).toBeCloseTo(1 - Math.exp(-11 / (44 + 3.25)), 9);
    expect(f.probability_48h).toBeCloseTo(1 - Math.exp((-11 / (44 + 3.25)) * 2), 9);
  });
});

describe('the climatology (base rates)', () => {
  it('is the share of checkpoint windows that held a reset', () => {
    // One reset every 2 days at 03:00 UTC: a window (c, c + 24h] holds one iff c is in [reset - 24h, reset),
    // i.e. 4 of the 8 checkpoints in each 2-day cycle; every 48h window holds one.
    const events = regular(30, 2, '2026-05-30T03:00:00Z');
    const c = computeForecast(events, new Date('2026-05-31T00:00:00Z'));
    expect(c.base_rate_24h).toBeCloseTo(0.5, 2);
    expect(c.base_rate_48h).toBe(1);
    expect(c.sample_size).toBe(30);
  });

  it('uses only resets known at asOf and is null below the minimum sample', () => {
    const events = regular(10, 5, '2026-05-01T00:00:00Z');
    expect(computeForecast(events, new Date('2026-04-30T00:00:00Z')).base_rate_24h).toBeNull();
    const c = computeForecast([...events, ev('2026-07-01T00:00:00Z')], new Date('2026-05-10T00:00:00Z'));
    expect(c.sample_size).toBe(10);
  });
});

describe('checkpointAtOrBefore', () => {
  it('floors to 00/06/12/18 UTC', () => {
    expect(iso(checkpointAtOrBefore(Date.parse('2026-06-01T05:59:59Z')))).toBe('2026-06-01T00:00:00Z');
    expect(iso(checkpointAtOrBefore(Date.parse('2026-06-01T06:00:00Z')))).toBe('2026-06-01T06:00:00Z');
    expect(iso(checkpointAtOrBefore(Date.parse('2026-06-01T23:10:00Z')))).toBe('2026-06-01T18:00:00Z');
  });
});

describe('computeForecast with an announced upcoming reset', () => {
  const quiet = regular(12, 10, '2026-01-15T00:00:00Z');
  // Two past announcements ("in the next hour") that were followed by their reset.
  const announcedBefore = (at: string) => ({
    ...ev(at),
    id: `a-${at}`,
    time_basis: 'effective' as const,
    effective_at: iso(Date.parse(at) + 3_600_000),
  });
  const history = [...quiet, announcedBefore('2025-12-01T10:00:00Z'), announcedBefore('2025-12-20T10:00:00Z')];
  const today17 = { id: 'sr-upcoming', scheduled_for: '2026-06-01T17:00:00Z', announced_at: '2026-06-01T05:30:00Z' };
  const reviewed = (at: string, classification: 'ahead' | 'done_now' = 'ahead') => ({
    post_id: '1',
    record_id: `a-${at}`,
    announced_at: at,
    classification,
    quote: 'will be reset in the next hour',
    due_within_hours: 1,
    record_is_the_promised_reset: true,
  });
  const announcementReview = [reviewed('2025-12-01T10:00:00Z'), reviewed('2025-12-20T10:00:00Z')];

  it('a reset announced for 17:00 UTC today lifts probability_24h to at least 0.5 and the explanation says why', () => {
    const plain = computeForecast(history, asOf);
    expect(plain.probability_24h!).toBeLessThan(0.5);
    const f = computeForecast(history, asOf, { announced: today17, announcementReview });
    expect(f.probability_24h!).toBeGreaterThanOrEqual(0.5);
    // Rule of succession: (2 followed + 1) / (2 announcements + 2) = 0.75.
    expect(f.probability_24h).toBeCloseTo(0.75, 12);
    expect(f.probability_48h!).toBeGreaterThanOrEqual(f.probability_24h!);
    expect(f.explanation.code).toBe('probability_announced');
    expect(f.explanation.params).toMatchObject({
      scheduled_for: '2026-06-01T17:00:00Z',
      follow_through: 75,
      announcements_followed: 2,
      announcements_sample: 2,
      probability_24h: 75,
    });
    expect(f.announced).toMatchObject({ id: 'sr-upcoming', inside_24h: true, inside_48h: true, sample_size: 2 });
  });

  it('a time inside 48 h but not 24 h raises only the 48 h probability', () => {
    const plain = computeForecast(history, asOf);
    const f = computeForecast(history, asOf, {
      announced: { ...today17, scheduled_for: '2026-06-02T18:00:00Z' },
      announcementReview,
    });
    expect(f.probability_24h).toBe(plain.probability_24h);
    expect(f.probability_48h).toBeCloseTo(0.75, 12);
  });

  it('an announcement without a time, or one already followed by a recorded reset, changes no probability', () => {
    const plain = computeForecast(history, asOf);
    const untimed = computeForecast(history, asOf, { announced: { ...today17, scheduled_for: null } });
    expect(untimed.probability_24h).toBe(plain.probability_24h);
    expect(untimed.announced).toMatchObject({ inside_24h: false, inside_48h: false });
    const spent = computeForecast([...history, ev('2026-06-01T05:45:00Z')], asOf, { announced: today17 });
    expect(spent.announced).toBeNull();
    expect(spent.explanation.code).toBe(plain.explanation.code);
  });

  it('only posts reviewed as "ahead" count: "done now" posts are their own outcome and never feed the estimate', () => {
    const doneOnly = [reviewed('2025-12-01T10:00:00Z', 'done_now'), reviewed('2025-12-20T10:00:00Z', 'done_now')];
    const f = computeForecast(history, asOf, { announced: today17, announcementReview: doneOnly });
    // Beta(1, 1) prior with no scored announcement: 0.5, not certainty; the explanation quotes n = 0.
    expect(f.announced).toMatchObject({ followed: 0, sample_size: 0, follow_through: 0.5 });
    expect(f.explanation.params).toMatchObject({ announcements_sample: 0 });
  });
});
