// Until when a build's present-tense answer holds at the edge: the 30-minute rule, the midnight cap, a recorded
// reset that holds until midnight, and the forecast's own hour.
import { describe, expect, it } from 'vitest';
import { FORECAST_STALE_AFTER_MS } from '../../builder/model/forecast.ts';
import {
  computeEdgeFreshness,
  computeForecastStaleAfter,
  computeStaleAfter,
  nextUtcDate,
  nextUtcMidnight,
  unknownVariants,
} from '../../builder/model/freshness.ts';

const at = (iso: string) => new Date(iso);
const calm = (last: string | null) => ({ state: 'no_verified_reset' as const, last_good_check_at: last });

describe('computeStaleAfter', () => {
  it('is 30 minutes after the last successful reset-source check, not after the build', () => {
    expect(computeStaleAfter(at('2026-11-21T12:00:00Z'), calm('2026-11-21T12:00:00Z')).toISOString()).toBe(
      '2026-11-21T12:30:00.000Z',
    );
    expect(computeStaleAfter(at('2026-11-21T12:10:00Z'), calm('2026-11-21T11:55:00Z')).toISOString()).toBe(
      '2026-11-21T12:25:00.000Z',
    );
  });

  it('never lies past the next UTC midnight', () => {
    expect(computeStaleAfter(at('2026-11-21T23:50:00Z'), calm('2026-11-21T23:45:00Z')).toISOString()).toBe(
      '2026-11-22T00:00:00.000Z',
    );
    expect(computeStaleAfter(at('2026-11-21T23:29:59Z'), calm('2026-11-21T23:29:59Z')).toISOString()).toBe(
      '2026-11-21T23:59:59.000Z',
    );
  });

  it('keeps a day with a recorded or confirmed reset known until midnight, even with stale or no checks', () => {
    for (const state of ['recorded_today', 'confirmed_today'] as const) {
      expect(
        computeStaleAfter(at('2026-11-21T23:50:00Z'), {
          state,
          last_good_check_at: '2026-11-21T08:00:00Z',
        }).toISOString(),
      ).toBe('2026-11-22T00:00:00.000Z');
      expect(computeStaleAfter(at('2026-11-21T00:00:00Z'), { state, last_good_check_at: null }).toISOString()).toBe(
        '2026-11-22T00:00:00.000Z',
      );
    }
  });

  it('is the build itself when no check ever succeeded, and when the last one is over 30 minutes old (never before the build)', () => {
    expect(
      computeStaleAfter(at('2026-11-21T12:00:00Z'), { state: 'unknown', last_good_check_at: null }).toISOString(),
    ).toBe('2026-11-21T12:00:00.000Z');
    expect(
      computeStaleAfter(at('2026-11-21T12:00:00Z'), {
        state: 'unknown',
        last_good_check_at: '2026-11-21T10:00:00Z',
      }).toISOString(),
    ).toBe('2026-11-21T12:00:00.000Z');
  });
});

describe('computeForecastStaleAfter', () => {
  it("is an hour after the forecast's issue, whatever today's answer and across midnight", () => {
    expect(FORECAST_STALE_AFTER_MS).toBe(60 * 60 * 1000);
    expect(computeForecastStaleAfter(at('2026-11-21T12:00:00Z')).toISOString()).toBe('2026-11-21T13:00:00.000Z');
    expect(computeForecastStaleAfter(at('2026-11-21T23:30:00Z')).toISOString()).toBe('2026-11-22T00:30:00.000Z');
    // Today's answer of the same build may hold shorter (unknown: not at all) or longer (a recorded reset: midnight).
    for (const today of [
      { state: 'unknown' as const, last_good_check_at: null },
      { state: 'recorded_today' as const, last_good_check_at: '2026-11-21T12:00:00Z' },
    ])
      expect(computeEdgeFreshness(at('2026-11-21T12:00:00Z'), today).forecast_stale_after).toBe('2026-11-21T13:00:00Z');
  });
});

describe('edge freshness values', () => {
  it("carry stale_after, the build's UTC date, the next, and the dates with dated unknown variants (across a year)", () => {
    expect(
      computeEdgeFreshness(at('2026-11-21T23:50:00Z'), {
        state: 'recorded_today',
        last_good_check_at: '2026-11-21T23:50:00Z',
      }),
    ).toEqual({
      stale_after: '2026-11-22T00:00:00Z',
      build_date: '2026-11-21',
      next_date: '2026-11-22',
      variant_dates: ['2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24'],
      forecast_stale_after: '2026-11-22T00:50:00Z',
    });
    expect(
      computeEdgeFreshness(at('2026-12-30T10:00:00Z'), { state: 'unknown', last_good_check_at: null }).variant_dates,
    ).toEqual(['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
  });

  it('publish a dateless variant served from the day after the last dated one', () => {
    expect(unknownVariants(at('2026-11-21T12:00:00Z')).at(-1)).toEqual({
      date: null,
      served_from: '2026-11-25T00:00:00.000Z',
    });
    expect(unknownVariants(at('2026-11-21T12:00:00Z'))[0]).toEqual({
      date: '2026-11-21',
      served_from: '2026-11-21T00:00:00.000Z',
    });
  });

  it('count days in UTC, across months and years', () => {
    expect(nextUtcMidnight(at('2026-12-31T23:59:59.999Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextUtcDate('2028-02-28')).toBe('2028-02-29');
    expect(nextUtcDate('2026-12-31')).toBe('2027-01-01');
  });
});
