// Pure: whether the tracker's announced reset is still upcoming, already recorded, or overdue.
import { formatInstant } from '../contract.ts';
import { DAY_MS, eventMs, normalizeUrl } from './events.ts';
import { capText, type Announcement, type Event, type Signal, type State } from './schemas.ts';

/**
 * How late a reset may land after its announced time (or a day after an announcement with no time) and still count
 * as upcoming. Later than that with no recorded reset, the announcement becomes a signal awaiting review: it may have
 * been postponed, cancelled, or applied without the tracker recording it.
 */
export const OVERDUE_AFTER_MS = 3 * 60 * 60 * 1000;

/**
 * A recorded event fulfils the announcement when it is the same record (the tracker lists the applied reset under
 * the same id, or a curated record names it in `same_as`), cites the same post, or is a reset of the announced type
 * that happened at or after the announcement.
 */
function isFulfilled(a: Announcement, events: readonly Event[], asOf: Date): boolean {
  const post = a.source === null ? null : normalizeUrl(a.source.url);
  return events.some(
    (e) =>
      e.id === a.id ||
      e.same_as.includes(a.id) ||
      (post !== null && e.sources.some((s) => normalizeUrl(s.url) === post)) ||
      (e.type === (a.type ?? 'global_reset') &&
        eventMs(e) >= Date.parse(a.announced_at) &&
        eventMs(e) <= asOf.getTime()),
  );
}

/** The announced reset still ahead (or landing late, within OVERDUE_AFTER_MS), or the one overdue past it. */
export function computeUpcoming(
  a: Announcement | null,
  events: readonly Event[],
  asOf: Date,
): { upcoming: Announcement | null; overdue: Announcement | null } {
  // An as-of build shows nothing first seen after asOf.
  if (a === null || Date.parse(a.first_seen_at) > asOf.getTime() || isFulfilled(a, events, asOf))
    return { upcoming: null, overdue: null };
  const due = a.scheduled_for !== null ? Date.parse(a.scheduled_for) : Date.parse(a.announced_at) + DAY_MS;
  if (asOf.getTime() > due + OVERDUE_AFTER_MS) return { upcoming: null, overdue: a };
  return { upcoming: a, overdue: null };
}

/** The state with the overdue announcement (if any) among the signals awaiting review, once. */
export function withOverdueAnnouncement(state: State, events: readonly Event[], asOf: Date): State {
  const { overdue: a } = computeUpcoming(state.announcement, events, asOf);
  if (a === null || state.signals.some((s) => s.id === `overdue-${a.id}`.slice(0, 120))) return state;
  const signal: Signal = {
    id: `overdue-${a.id}`.slice(0, 120),
    kind: 'overdue_announcement',
    source: 'tracker-status',
    title: capText(a.text, 300),
    excerpt: capText(a.text, 1000),
    url: a.source?.url ?? null,
    published_at: a.announced_at,
    first_seen_at: formatInstant(asOf),
    review: 'awaiting_review',
    promoted_to: null,
  };
  return { ...state, signals: [signal, ...state.signals] };
}
