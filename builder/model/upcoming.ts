// Pure: whether the tracker's announced reset is still upcoming, already recorded, or overdue.
import { formatInstant } from '../contract.ts';
import { eventMs, normalizeUrl } from './events.ts';
import type { Announcement, Event, Signal, State } from './schemas.ts';

/** An announcement with no time is due this long after it was posted ("lands in the next hour" is the usual). */
export const UNSCHEDULED_DUE_MS = 24 * 60 * 60 * 1000;
/**
 * How late a reset may land after its announced time and still count as upcoming: 3 hours. Later than that with no
 * recorded reset, the announcement stops being upcoming and becomes a signal awaiting review (it may have been
 * postponed, cancelled, or applied without the tracker recording it).
 */
export const OVERDUE_AFTER_MS = 3 * 60 * 60 * 1000;

export interface UpcomingStatus {
  /** The announced reset still ahead (or landing late, within OVERDUE_AFTER_MS); null otherwise. */
  upcoming: Announcement | null;
  /** The announcement whose time passed by more than OVERDUE_AFTER_MS with no recorded reset. */
  overdue: Announcement | null;
}

/** When the announced reset should have landed. */
export function announcementDueMs(a: Announcement): number {
  return a.scheduled_for !== null ? Date.parse(a.scheduled_for) : Date.parse(a.announced_at) + UNSCHEDULED_DUE_MS;
}

/**
 * A recorded event fulfils the announcement when it is the same record (the tracker lists the applied reset under
 * the same id, or a curated record names it in `same_as`), cites the same post, or is a reset of the announced type
 * that happened at or after the announcement.
 */
export function isFulfilled(a: Announcement, events: readonly Event[], asOf: Date): boolean {
  const announced = Date.parse(a.announced_at);
  const post = a.source === null ? null : normalizeUrl(a.source.url);
  return events.some(
    (e) =>
      e.id === a.id ||
      e.same_as.includes(a.id) ||
      (post !== null && e.sources.some((s) => normalizeUrl(s.url) === post)) ||
      (e.type === (a.type ?? 'global_reset') && eventMs(e) >= announced && eventMs(e) <= asOf.getTime()),
  );
}

export function computeUpcoming(a: Announcement | null, events: readonly Event[], asOf: Date): UpcomingStatus {
  // An as-of build shows nothing first seen after asOf.
  if (a === null || Date.parse(a.first_seen_at) > asOf.getTime() || isFulfilled(a, events, asOf))
    return { upcoming: null, overdue: null };
  if (asOf.getTime() > announcementDueMs(a) + OVERDUE_AFTER_MS) return { upcoming: null, overdue: a };
  return { upcoming: a, overdue: null };
}

export function overdueSignal(a: Announcement, asOf: Date): Signal {
  return {
    id: `overdue-${a.id}`.slice(0, 120),
    kind: 'overdue_announcement',
    source: 'tracker-status',
    title: a.text.length > 300 ? `${a.text.slice(0, 299)}…` : a.text,
    excerpt: a.text.length > 1000 ? `${a.text.slice(0, 999)}…` : a.text,
    url: a.source?.url ?? null,
    published_at: a.announced_at,
    first_seen_at: formatInstant(asOf),
    review: 'awaiting_review',
    promoted_to: null,
  };
}

/** The state with the overdue announcement (if any) among the signals awaiting review, once. */
export function withOverdueAnnouncement(state: State, events: readonly Event[], asOf: Date): State {
  const { overdue } = computeUpcoming(state.announcement, events, asOf);
  if (overdue === null) return state;
  const signal = overdueSignal(overdue, asOf);
  if (state.signals.some((s) => s.id === signal.id)) return state;
  return { ...state, signals: [signal, ...state.signals] };
}
