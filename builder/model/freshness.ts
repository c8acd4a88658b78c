// Pure: until when the present-tense answer of a build holds, and the values the edge needs to stop serving it
// afterwards. A static file cannot turn itself `unknown`; the edge router compares these values with its clock.
import { EDGE_EVENT_KEY_PREFIX, EDGE_FRESHNESS_KEY, formatInstant } from '../contract.ts';
import { DAY_MS, utcDate } from './events.ts';
import { STALE_AFTER_MS, type TodayState } from './status.ts';

/**
 * How many UTC dates after its own a build publishes dated `unknown` variants for. Past the last of them the edge serves
 * the dateless "builds stopped" variant, so it never names a day that is not the reader's. Each date costs 15 objects a
 * tick (latest, status and the page in five languages), rewritten every tick since they carry the build's facts.
 */
export const UNKNOWN_VARIANT_DAYS_AHEAD = 3;

/** What the edge store holds after a build (the KeyValueStore in production, dist/edge-store.json locally). */
export interface EdgeFreshness {
  /** After this instant the build's present-tense documents are stale: the edge serves their `unknown` variants. */
  stale_after: string;
  /** The build's UTC date; on any other date the edge serves the `unknown` variant of that date. */
  build_date: string;
  /** The UTC date after it (precomputed, so the edge function does no date arithmetic). */
  next_date: string;
  /** The dates with published `unknown` variants, one a day from build_date on; the edge serves the dateless one after. */
  variant_dates: string[];
}

/** The first instant of the UTC day after `at`. */
export function nextUtcMidnight(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()) + DAY_MS);
}

/** `YYYY-MM-DD` of the UTC day after `date` (`YYYY-MM-DD`). */
export function nextUtcDate(date: string): string {
  return utcDate(new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS));
}

/**
 * Until when today's answer holds: 30 minutes after the last successful reset-source check, and never past the next
 * UTC midnight (the answer is about a date). A day that already has a recorded or confirmed reset stays so until
 * midnight, whatever the checks do: a reset that happened does not un-happen. With no successful check at all the
 * answer is `unknown` already, and stale from the build on; so is one whose last good check is over 30 minutes old
 * (never an instant before the build).
 */
export function computeStaleAfter(asOf: Date, today: { state: TodayState; last_good_check_at: string | null }): Date {
  const midnight = nextUtcMidnight(asOf);
  if (today.state === 'confirmed_today' || today.state === 'recorded_today') return midnight;
  if (today.last_good_check_at === null) return asOf;
  const checkedAt = Date.parse(today.last_good_check_at);
  // Never before the build itself: the documents and the edge store name this one instant.
  return new Date(Math.max(Math.min(checkedAt + STALE_AFTER_MS, midnight.getTime()), asOf.getTime()));
}

export function computeEdgeFreshness(
  asOf: Date,
  today: { state: TodayState; last_good_check_at: string | null },
): EdgeFreshness {
  const variant_dates = unknownVariantDates(asOf);
  const [build_date, next_date] = variant_dates as [string, string];
  return { stale_after: formatInstant(computeStaleAfter(asOf, today)), build_date, next_date, variant_dates };
}

/** The edge store's entries for a build: the freshness values and one key per published event id. */
export function edgeStoreEntries(freshness: EdgeFreshness, eventIds: Iterable<string>): Record<string, string> {
  const entries: Record<string, string> = { [EDGE_FRESHNESS_KEY]: JSON.stringify(freshness) };
  for (const id of eventIds) entries[EDGE_EVENT_KEY_PREFIX + id] = '1';
  return entries;
}

/** The dates the build publishes dated `unknown` variants for: its own UTC date and UNKNOWN_VARIANT_DAYS_AHEAD more. */
export function unknownVariantDates(asOf: Date): string[] {
  const dates = [utcDate(asOf)];
  for (let i = 0; i < UNKNOWN_VARIANT_DAYS_AHEAD; i++) dates.push(nextUtcDate(dates[i]!));
  return dates;
}

/** One `unknown` variant to publish: its date (null: the dateless one) and the first instant the edge may serve it. */
export interface UnknownVariant {
  date: string | null;
  /** The start of `date`; for the dateless one, the start of the day after the last dated one. */
  served_from: string;
}

export function unknownVariants(asOf: Date): UnknownVariant[] {
  const dates = unknownVariantDates(asOf);
  const dateless = { date: null, served_from: `${nextUtcDate(dates.at(-1)!)}T00:00:00.000Z` };
  return [...dates.map((d) => ({ date: d, served_from: `${d}T00:00:00.000Z` })), dateless];
}
