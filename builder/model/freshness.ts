// Pure: until when the present-tense answer of a build holds, and the values the edge needs to stop serving it
// afterwards. A static file cannot turn itself `unknown`; the edge router compares these values with its clock.
import { EDGE_EVENT_KEY_PREFIX, EDGE_FRESHNESS_KEY, formatInstant } from '../contract.ts';
import { utcDate } from './events.ts';
import { STALE_AFTER_MS, type TodayState, type TodayStatus } from './status.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the edge store holds after a build (the KeyValueStore in production, dist/edge-store.json locally). */
export interface EdgeFreshness {
  /** After this instant the build's present-tense documents are stale: the edge serves their `unknown` variants. */
  stale_after: string;
  /** The build's UTC date; on any other date the edge serves the `unknown` variant of that date. */
  build_date: string;
  /** The UTC date after it (precomputed, so the edge function does no date arithmetic). */
  next_date: string;
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
 * answer is `unknown` already, and stale from the build on.
 */
export function computeStaleAfter(asOf: Date, today: { state: TodayState; last_good_check_at: string | null }): Date {
  const midnight = nextUtcMidnight(asOf);
  if (today.state === 'confirmed_today' || today.state === 'recorded_today') return midnight;
  if (today.last_good_check_at === null) return asOf;
  const checkedAt = Date.parse(today.last_good_check_at);
  return new Date(Math.min(checkedAt + STALE_AFTER_MS, midnight.getTime()));
}

export function computeEdgeFreshness(asOf: Date, today: { state: TodayState; last_good_check_at: string | null }): EdgeFreshness {
  const date = utcDate(asOf);
  return { stale_after: formatInstant(computeStaleAfter(asOf, today)), build_date: date, next_date: nextUtcDate(date) };
}

/** The edge store's entries for a build: the freshness values and one key per published event id. */
export function edgeStoreEntries(freshness: EdgeFreshness, eventIds: Iterable<string>): Record<string, string> {
  const entries: Record<string, string> = { [EDGE_FRESHNESS_KEY]: JSON.stringify(freshness) };
  for (const id of eventIds) entries[EDGE_EVENT_KEY_PREFIX + id] = '1';
  return entries;
}

/**
 * Today's state as the edge must answer once a build's answer no longer holds: `unknown` for `date`, saying when the
 * last good check was. The facts about the past stay (the documents' latest resets and checks).
 */
export function unknownToday(date: string, lastGoodCheckAt: string | null): TodayStatus {
  return {
    date,
    state: 'unknown',
    reset: null,
    event_ids: [],
    last_good_check_at: lastGoodCheckAt,
    valid_until: null,
    explanation: lastGoodCheckAt === null ? { code: 'state.unknown_unchecked', params: {} } : { code: 'state.unknown_stale', params: { last: lastGoodCheckAt } },
  };
}

/** The dates the build publishes `unknown` variants for: its own UTC date and the next one. */
export function unknownVariantDates(asOf: Date): [string, string] {
  const today = utcDate(asOf);
  return [today, nextUtcDate(today)];
}
