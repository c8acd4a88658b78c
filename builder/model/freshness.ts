// Pure: until when the present-tense answer of a build holds, and the values the edge needs to stop serving it
// afterwards. A static file cannot turn itself `unknown`; the edge router compares these values with its clock.
import { EDGE_EVENT_KEY_PREFIX, EDGE_FRESHNESS_KEY, formatInstant } from '../contract.ts';
import { DAY_MS, instantMs, utcDate } from './events.ts';
import { FORECAST_STALE_AFTER_MS } from './forecast.ts';
import { STALE_AFTER_MS, type TodayState } from './status.ts';

/**
 * UTC dates after its own a build publishes dated `unknown` variants for (15 objects a date, every tick); past them the
 * edge serves the dateless "builds stopped" variant, so it never names a day that is not the reader's.
 */
export const UNKNOWN_VARIANT_DAYS_AHEAD = 3;

export const nextUtcMidnight = (at: Date): Date => new Date(instantMs(utcDate(at)) + DAY_MS);
export const nextUtcDate = (date: string): string => utcDate(new Date(instantMs(date) + DAY_MS));

/**
 * Until when today's answer holds: 30 minutes after the last good reset-source check, never past the next UTC midnight
 * and never before the build; a recorded reset holds until midnight (it does not un-happen).
 */
export function computeStaleAfter(asOf: Date, today: { state: TodayState; last_good_check_at: string | null }): Date {
  const midnight = nextUtcMidnight(asOf);
  if (today.state === 'confirmed_today' || today.state === 'recorded_today') return midnight;
  if (today.last_good_check_at === null) return asOf;
  const checkedAt = Date.parse(today.last_good_check_at);
  // Never before the build itself: the documents and the edge store name this one instant.
  return new Date(Math.max(Math.min(checkedAt + STALE_AFTER_MS, midnight.getTime()), asOf.getTime()));
}

/**
 * Until when the forecast issued at `asOf` holds: FORECAST_STALE_AFTER_MS later, whatever today's state (a forecast is
 * about the hours after its issue, not about the UTC date).
 */
export const computeForecastStaleAfter = (asOf: Date): Date => new Date(asOf.getTime() + FORECAST_STALE_AFTER_MS);

/**
 * What the edge store holds after a build (edge/route.ts EdgeFreshness): after `stale_after` the edge serves the
 * `unknown` variants; on a date other than `build_date` (`next_date` precomputed, so the edge does no date
 * arithmetic) the variant of that date, and past the last of `variant_dates` the dateless one. After
 * `forecast_stale_after` it serves the expired forecast.
 */
export function computeEdgeFreshness(asOf: Date, today: { state: TodayState; last_good_check_at: string | null }) {
  const variant_dates = unknownVariantDates(asOf);
  const [build_date, next_date] = variant_dates as [string, string];
  return {
    stale_after: formatInstant(computeStaleAfter(asOf, today)),
    build_date,
    next_date,
    variant_dates,
    forecast_stale_after: formatInstant(computeForecastStaleAfter(asOf)),
  };
}

/** The edge store's entries for a build: the freshness values and one key per published event id. */
export function edgeStoreEntries(freshness: ReturnType<typeof computeEdgeFreshness>, eventIds: Iterable<string>) {
  const events = Array.from(eventIds, (id) => [EDGE_EVENT_KEY_PREFIX + id, '1'] as const);
  return { [EDGE_FRESHNESS_KEY]: JSON.stringify(freshness), ...Object.fromEntries(events) };
}

/** The dates the build publishes dated `unknown` variants for: its own UTC date and UNKNOWN_VARIANT_DAYS_AHEAD more. */
export const unknownVariantDates = (asOf: Date): string[] =>
  Array.from({ length: UNKNOWN_VARIANT_DAYS_AHEAD + 1 }, (_, i) => utcDate(new Date(asOf.getTime() + i * DAY_MS)));

/** One `unknown` variant to publish: its date (null: the dateless one) and the first instant the edge may serve it. */
export type UnknownVariant = ReturnType<typeof unknownVariants>[number];

/** The dated variants, each served from the start of its day, and the dateless one from the day after the last. */
export function unknownVariants(asOf: Date) {
  const dates = unknownVariantDates(asOf);
  const from = (date: string | null, day: string) => ({ date, served_from: `${day}T00:00:00.000Z` });
  return [...dates.map((d) => from(d, d)), from(null, nextUtcDate(dates.at(-1)!))];
}
